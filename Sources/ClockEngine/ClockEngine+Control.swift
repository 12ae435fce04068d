import FoundationEssentials
import TalkingClockCore

/// The control surface and reloads: what the engine answers to each request of the command table.
extension ClockEngine {
    // MARK: - Control

    mutating func control(_ request: ControlRequest, _ replyTo: ReplyTo, now: Double, _ out: inout [EngineEffect]) {
        if let reply = respond(request, replyTo, now: now, &out) { out.append(.reply(replyTo, reply)) }
    }

    /// The reply now, or nil when it comes later (an `announce`, a `reload`, a mute being saved, a
    /// `say` whose device is opening).
    mutating func respond(_ request: ControlRequest, _ replyTo: ReplyTo, now: Double, _ out: inout [EngineEffect])
        -> ControlReply?
    {
        switch request {
        case .help: return .ok(ControlRequest.helpText)
        case .status: return .ok(Self.line(status(now: now)))
        case .statusJSON: return .ok(status(now: now).json)
        case .say: return say(at: nil, replyTo, now: now, &out)
        case .sayAt(let instant): return say(at: instant, replyTo, now: now, &out)
        case .speak(let text, let instant): return speak(text, at: instant, replyTo, now: now, &out)
        case .reminders: return .ok(remindersLine(now: now))
        case .remindersJSON: return .ok(remindersReport(now: now).json)
        case .skipReminder:
            guard !scheduler.config.reminders.isEmpty else { return .error("there are no reminders ([[reminder]] in the config)", kind: .usage) }
            scheduler.skipNextReminder = true
            let next = nextReminder(now: now)
            out.append(.log(LogLine(.info, "skip requested", [("action", "leave out the next reminder")] + (next.map { [("at", $0.at)] } ?? []))))
            return .ok("the next reminder will be left out" + (next.map { " (\($0.at) \"\($0.text)\")" } ?? "") + " ('unskip' takes it back)")
        case .away(let on):
            scheduler.state.away = on
            save(&out)
            out.append(.log(LogLine(.info, "away changed", [("away", on ? "on" : "off")])))
            return .ok(on ? "away: reminders pause until 'away off' (the clock still speaks; mute silences it)" : "away off: reminders are said again")
        case .trigger: return trigger(maxWait: options.maxWait, waiter: nil, now: now, &out)
        case .announce(let maxWait): return trigger(maxWait: Double(maxWait), waiter: replyTo, now: now, &out)
        case .mute, .muteFor, .muteUntil, .unmute:
            var state = scheduler.state
            switch request {
            case .mute: state.mute = .muted
            case .muteFor(let seconds): state.mute = .mutedUntil(Int(now) + seconds)
            case .muteUntil(let h, let m): state.mute = .mutedUntil(Mute.nextInstant(hour: h, minute: m, after: Int(now), in: zone))
            default: state.mute = .unmuted
            }
            // Applied once it is on disk: a mute that could not be saved is refused, never lost at a
            // restart. Every save until then writes the newest mute asked for (`persistable`).
            pendingMutes.append((replyTo, state.mute, 0))
            save(for: replyTo, &out)
            pendingMutes[pendingMutes.count - 1].savesThen = saves
            return nil
        case .skip:
            if playing != nil {
                out.append(.log(LogLine(.info, "skip requested", [("action", "cut the current announcement")])))
                cut(.skipRequested, &out)
                return .ok("cut the current announcement")
            }
            scheduler.skipNext = true
            out.append(.log(LogLine(.info, "skip requested", [("action", "leave out the next announcement")])))
            return .ok("the next announcement will be left out ('unskip' takes it back)")
        case .unskip:
            guard scheduler.skipNext || scheduler.skipNextReminder else { return .ok("no skip was pending") }
            scheduler.skipNext = false
            scheduler.skipNextReminder = false
            out.append(.log(LogLine(.info, "skip taken back")))
            return .ok("the next announcement will be spoken")
        case .chime(let style):
            // The same check as at start and reload: the pack must be able to ring it.
            if let problem = pack.chimeProblem(style) { return .error("chime not changed: \(problem)", kind: .pack) }
            scheduler.config.chime = style
            if case .running(let w, var set, let again) = reload {
                set.chime = style
                reload = .running(waiters: w, setDuring: set, again: again)
            }
            out.append(.log(LogLine(.info, "chime changed", [("chime", style.rawValue), ("until", "reload")])))
            rearmForNewSettings(now: now, &out)
            return .ok("chime \(style.rawValue) (until reload or restart; set chime in the config to keep it)")
        case .volume(let percent):
            scheduler.config.volume = percent
            if case .running(let w, var set, let again) = reload {
                set.volume = percent
                reload = .running(waiters: w, setDuring: set, again: again)
            }
            out.append(.log(LogLine(.info, "volume changed", [("volume", "\(percent)"), ("until", "reload")])))
            return .ok("volume \(percent) (until reload or restart; set volume in the config to keep it)")
        case .reload:
            requestReload(replyTo, &out)
            return nil
        }
    }

    /// A changed chime may change the pre-roll of the boundary armed: wake for it at the new time.
    mutating func rearmForNewSettings(now: Double, _ out: inout [EngineEffect]) {
        if let boundary = armed, timerDriven { arm(boundary, now: now, &out) }
    }

    mutating func saved(_ replyTo: ReplyTo, error: String?, now: Double, _ out: inout [EngineEffect]) {
        guard let i = pendingMutes.firstIndex(where: { $0.reply == replyTo }) else { return }
        let (_, mute, savesThen) = pendingMutes.remove(at: i)
        if let error {
            out.append(.reply(replyTo, .error("mute state not changed: \(error)", kind: .state)))
            // A save asked for since may hold this refused mute: one more, without it, supersedes it.
            if saves > savesThen { save(&out) }
            return
        }
        scheduler.state.mute = mute
        stateWarning = nil
        out.append(.log(LogLine(.info, "mute changed", [("mute", "\(mute)")])))
        if let current = playing, let b = current.boundary, mute.isMuted(at: b) {
            // Muted while its announcement waits for the boundary or plays: silence now.
            cut(.muted, &out)
        }
        out.append(.reply(replyTo, .ok(mute.description(in: zone))))
    }

    /// `say` (now) and `say at T` (first sample at `T`, within the late limit and the horizon); with
    /// `spoken`, the words of a `speak` (rendered as that clip) instead of the time.
    mutating func say(
        at instant: Double?, _ replyTo: ReplyTo, now: Double, spoken: (text: String, clip: String)? = nil, _ out: inout [EngineEffect]
    ) -> ControlReply? {
        var ahead = 0.0
        if let instant {
            let at = Format.fixed(instant, 3)
            ahead = instant - now
            out.append(.log(LogLine(.info, "say at", [("instant", at), ("ahead_s", Format.fixed(ahead, 3))])))
            guard ahead <= ControlRequest.sayAtHorizon else {
                return .error(
                    "say at \(at) is \(Format.fixed(ahead, 1)) s ahead, more than \(Int(ControlRequest.sayAtHorizon)) s; send it closer to the instant (say --everywhere picks the next whole second at least 0.5 s away)",
                    kind: .usage)
            }
            guard -ahead <= scheduler.config.lateLimit else {
                return .error(
                    "say at \(at) arrived \(Format.fixed(-ahead, 3)) s after its instant, more than late-limit (\(Format.fixed(scheduler.config.lateLimit, 1)) s); nothing spoken. Check that this machine's clock is synchronised (chronyc tracking) and the broker is reachable",
                    kind: .stale)
            }
        }
        if let current = playing {
            if let b = current.boundary {
                return .error(
                    "the announcement for \(CivilTime.local(b, in: zone).rfc3339) is playing or about to; try again when it ends, or 'skip' it",
                    kind: .busy)
            }
            cut(.replacedBySay, &out)  // a later `say` replaces an earlier one
        }
        let spokenAt = max(instant ?? now, now)
        let local = CivilTime.local(Int(spokenAt.rounded(.down)), in: zone)
        var style = scheduler.config.announcementStyle
        style.chime = .none  // on demand: just the time
        let anchor = (instant != nil && ahead > 0) ? instant : nil
        var parts = Parts(time: style)
        if let spoken {
            parts = Parts(spoken: spoken)
        }
        if let failure = startPlaying(
            boundary: nil, local: local, parts: parts, gain: Float(scheduler.config.volume) / 100, anchor: anchor, now: now,
            sayReply: replyTo, &out)
        {
            return .error("failed: \(failure.reason?.text ?? "")", kind: failure.replyKind)
        }
        guard playing?.sayReply == replyTo else { return nil }  // handed to speech-dispatcher: its answer replies
        let text = playing?.text ?? ""
        if let instant {
            let at = Format.fixed(instant, 3)
            playing?.sayReplyText =
                ahead > 0
                ? "speaking \"\(text)\" at \(at) (in \(Format.fixed(ahead, 3)) s)"
                : "speaking \"\(text)\" now, \(Format.fixed(-ahead, 3)) s late (say at \(at) arrived after its instant)"
        } else {
            playing?.sayReplyText = "speaking \(text)"
        }
        return nil
    }

    /// `announce` requests that may wait for their boundary at once.
    static let maximumWaiters = 256

    /// `speak <text>` and `speak at T <text>`: the words rendered by the pack's synthesis engine
    /// (off the loop; at once when a reminder already has them), then played like `say`. With
    /// speech-dispatcher the words are handed over at the instant.
    mutating func speak(_ text: String, at instant: Double?, _ replyTo: ReplyTo, now: Double, _ out: inout [EngineEffect])
        -> ControlReply?
    {
        if let instant {
            let ahead = instant - now
            guard ahead <= ControlRequest.sayAtHorizon else {
                return .error(
                    "speak at \(Format.fixed(instant, 3)) is \(Format.fixed(ahead, 1)) s ahead, more than \(Int(ControlRequest.sayAtHorizon)) s; send it closer to the instant",
                    kind: .usage)
            }
        }
        if scheduler.config.voiceOutput == .speechDispatcher { return say(at: instant, replyTo, now: now, spoken: (text, ""), &out) }
        if let clip = pack.texts[text], pack.clipFrames[clip] != nil {
            return say(at: instant, replyTo, now: now, spoken: (text, clip), &out)
        }
        let id = takeID()
        rendering[id] = (text, instant, replyTo)
        out.append(.log(LogLine(.info, "rendering", [("text", text)] + (instant.map { [("instant", Format.fixed($0, 3))] } ?? []))))
        out.append(.render(id: id, text: text, clip: PackFacts.clipID(forText: text)))
        return nil
    }

    /// A `speak`'s words are rendered: say them (now, or at their instant), or say why not.
    mutating func rendered(_ id: Int, _ result: Result<RenderedText, RenderFailure>, now: Double, _ out: inout [EngineEffect]) {
        guard let request = rendering.removeValue(forKey: id) else { return }
        switch result {
        case .failure(let failure):
            out.append(.log(LogLine(.error, "speak failed", [("text", request.text), ("reason", failure.description)])))
            out.append(.reply(request.reply, .error("not spoken: \(failure.description)", kind: .pack)))
        case .success(let rendered):
            // The words of the last `speak` only: an earlier one's clip is forgotten.
            if let previous = lastSpokenClip, previous != rendered.clip, !pack.texts.values.contains(previous) {
                pack.clipFrames[previous] = nil
            }
            lastSpokenClip = rendered.clip
            pack.clipFrames[rendered.clip] = rendered.frames
            if let reply = say(at: request.at, request.reply, now: now, spoken: (request.text, rendered.clip), &out) {
                out.append(.reply(request.reply, reply))
            }
        }
    }

    /// A reading of the `[value]` topic: kept with its time, or refused (with a log line) when it
    /// is not a number the clock can say.
    mutating func valueReceived(_ reading: String, now: Double, _ out: inout [EngineEffect]) {
        do throws(PhraseRequestError) {
            value = (try Phrase.wholeNumber(reading: reading), now)
        } catch {
            out.append(
                .log(
                    LogLine(
                        .warning, "value refused",
                        [("topic", scheduler.config.value?.topic ?? ""), ("reason", error.message), ("hint", "the last good reading stays")])))
        }
    }

    // MARK: Reminders

    /// The next reminder's instant and its words (what it says, as text).
    func nextReminder(now: Double) -> (instant: Int, at: String, text: String)? {
        let config = scheduler.config
        guard let instant = ReminderSchedule.next(after: now, reminders: config.reminders, in: zone) else { return nil }
        let labels = ReminderSchedule.due(at: instant, reminders: config.reminders, in: zone).map { config.reminders[$0].label }
        return (instant, CivilTime.local(instant, in: zone).rfc3339, labels.joined(separator: ". "))
    }

    /// `reminders json`: each reminder and when it is next said.
    func remindersReport(now: Double) -> RemindersReport {
        let config = scheduler.config
        return RemindersReport(
            reminders: config.reminders.map { r in
                let next = ReminderSchedule.next(after: now, reminders: [r], in: zone)
                return RemindersReport.Entry(
                    at: r.times.map(Reminder.hhmm),
                    days: { if case .weekdays(let w) = r.days { return w.description } else { return nil } }(),
                    dates: { if case .dates(let d) = r.days { return d.map(\.description) } else { return nil } }(),
                    say: { if case .text(let t) = r.content { return t.source } else { return nil } }(),
                    clip: { if case .clip(let p) = r.content { return p } else { return nil } }(), append: r.append,
                    speaksThrough: r.speaksThrough.map(\.rawValue).sorted(),
                    next: next.map { CivilTime.local($0, in: zone).rfc3339 })
            }, skipPending: scheduler.skipNextReminder, away: awayText(now: now))
    }

    /// `reminders`: one line.
    func remindersLine(now: Double) -> String {
        let config = scheduler.config
        guard !config.reminders.isEmpty else { return "no reminders ([[reminder]] in the config adds them)" }
        var parts = ["\(config.reminders.count) reminder\(config.reminders.count == 1 ? "" : "s")"]
        if let away = awayText(now: now) { parts.append("away \(away): reminders pause") }
        if scheduler.skipNextReminder { parts.append("the next one is skipped ('unskip' takes it back)") }
        for (i, r) in config.reminders.enumerated() {
            let next = ReminderSchedule.next(after: now, reminders: [r], in: zone).map { CivilTime.local($0, in: zone).rfc3339 }
            parts.append("\(i + 1)) \(r)" + (next.map { " (next \($0))" } ?? " (not again)"))
        }
        return parts.joined(separator: "; ")
    }

    /// Why reminders pause now, in words ("on (the switch)", "2026-08-01 to 2026-08-14"); nil when
    /// they do not.
    func awayText(now: Double) -> String? {
        if scheduler.state.away { return "on (the switch)" }
        let today = CalendarDate(CivilTime.local(Int(now), in: zone))
        return scheduler.config.away.first { $0.covers(today) }?.description
    }

    /// A trigger (`trigger`, `announce N`, `announce --next`): arm the next boundary if it is within
    /// `maxWait`. With a waiter, the reply comes once the boundary has been decided and played.
    mutating func trigger(maxWait: Double, waiter: ReplyTo?, now: Double, _ out: inout [EngineEffect]) -> ControlReply? {
        // A trigger up to a minute after a boundary that was spoken is told so ("already announced"),
        // rather than that the next one is too far: the likelier mistake is a late cron line.
        let recent = AnnouncementScheduler.nextInstant(
            after: now - max(scheduler.config.lateLimit, 60), in: zone, config: scheduler.config)
        if case .skip(_, let local, .alreadySpoken) = scheduler.decide(boundary: recent, now: now, in: zone), playing?.boundary != recent {
            let o = Outcome(.skipped, boundary: recent, at: local.rfc3339, reason: .skipped(.alreadySpoken))
            last = o
            out.append(.outcome(o))
            return .error("\(local.rfc3339) was already announced", kind: .stale)
        }
        let boundary = scheduler.nextBoundary(after: now - scheduler.config.lateLimit, in: zone)
        let local = CivilTime.local(boundary, in: zone)
        let wait = Double(boundary) - now
        out.append(.log(LogLine(.info, "trigger", [("boundary", local.rfc3339), ("wait_s", Format.fixed(wait, 1))])))
        // The wait is checked first, whatever is armed: on the timer driver the next boundary is
        // always armed, and `announce --next --max-wait 5` must not wait a quarter of an hour.
        guard wait <= maxWait || playing?.boundary == boundary else {
            // `announce` has a --max-wait; a plain `trigger` waits at most the daemon's own limit.
            let limit = waiter == nil ? "a trigger waits (\(Int(maxWait)) s)" : "--max-wait \(Int(maxWait)) s"
            return .error(
                "the next boundary (\(local.rfc3339)) is \(Int(wait.rounded())) s away, more than \(limit); trigger closer to it",
                kind: .stale)
        }
        if let waiter, waiter != .oneShot, waiters.count >= Self.maximumWaiters {
            // A flood of `announce` from clients that come and go would otherwise hold a reply
            // for each until the boundary.
            return .error(
                "\(waiters.count) announce requests already wait for \(local.rfc3339); try again after it, or use 'trigger'",
                kind: .busy)
        }
        if playing?.boundary == boundary || armed == boundary || looking == boundary {
            guard let waiter else { return .ok("already announcing \(local.rfc3339)") }
            waiters.append((boundary, waiter))
            return nil
        }
        if let waiter { waiters.append((boundary, waiter)) }
        if now >= wakeTime(for: boundary) {
            lookThenAnnounce(boundary, now: now, &out)  // already inside the lead and pre-roll (or late, within the late limit)
        } else {
            arm(boundary, now: now, &out)
        }
        return waiter == nil ? .ok("announcing \(local.rfc3339) in \(Format.fixed(max(0, wait), 1)) s") : nil
    }

    // MARK: Reload

    mutating func requestReload(_ replyTo: ReplyTo?, _ out: inout [EngineEffect]) {
        switch reload {
        case .running(let waiters, let set, let again):
            // One more after this one: it must read the file as it is after this request.
            reload = .running(waiters: waiters, setDuring: set, again: (again ?? []) + (replyTo.map { [$0] } ?? []))
        case .idle:
            reload = .running(waiters: replyTo.map { [$0] } ?? [], setDuring: SetDuringReload(), again: nil)
            out.append(.startReload)
        }
    }

    mutating func reloaded(
        _ result: Result<EngineSettings, SettingsFailure>, zone newZone: Zone, now: Double, _ out: inout [EngineEffect]
    ) {
        guard case .running(let waiters, let setDuring, let again) = reload else { return }
        let reply: ControlReply
        switch result {
        case .failure(let failure):
            out.append(.log(LogLine(.error, "reload refused", [("reason", failure.message)])))
            reply = .error("reload refused, the previous configuration and pack stay: \(failure.message)", kind: failure.kind)
        case .success(var settings):
            // What was set while the reload ran was set after it read the file: it stands.
            if let volume = setDuring.volume { settings.config.volume = volume }
            if let chime = setDuring.chime {
                if let problem = settings.pack.chimeProblem(chime) {
                    out.append(.log(LogLine(.warning, "chime set during reload dropped", [("chime", chime.rawValue), ("reason", problem)])))
                } else {
                    settings.config.chime = chime
                }
            }
            scheduler.config = settings.config
            pack = settings.pack
            outputLead = settings.outputLead
            forgetMemos()
            noteZone(newZone, now: now, &out)
            out.append(.adopt(settings.config))
            out.append(.log(LogLine(.info, "reloaded", [("pack", pack.name), ("device", settings.config.device)])))
            // Also while playing: the boundary armed may not be one in the new zone or interval.
            if timerDriven {
                arm(scheduler.boundaryToArm(after: nil, now: now, in: zone), now: now, &out)
            } else if let boundary = armed {
                arm(boundary, now: now, &out)
            }
            armReminder(now: now, &out)
            reply = .ok("reloaded" + (settings.warning.map { "; warning: \($0)" } ?? ""))
        }
        for waiter in waiters { out.append(.reply(waiter, reply)) }
        reload = .idle
        if let again {
            reload = .running(waiters: again, setDuring: SetDuringReload(), again: nil)
            out.append(.startReload)
        }
    }

    mutating func stop(now: Double, _ out: inout [EngineEffect]) {
        out.append(.log(LogLine(.info, "stopping")))
        if let current = playing {
            // Its outcome is said (a boundary interrupted by SIGTERM is not silently lost), and it
            // ends with a short fade, not a click.
            out.append(.fadeOut(id: current.id))
            ended(current, &out)
            record(Outcome(.cut, boundary: current.boundary, at: current.local.rfc3339, text: current.text, reason: .stopping), &out)
        }
        for boundary in Set(waiters.map(\.boundary)) {
            resolveWaiters(boundary, .error("not announced: the daemon is stopping", kind: .stale), &out)
        }
        out.append(.exit(.ok))
    }
}
