import XCTest

@testable import PhraseGrammar

/// Real phrases per language, one line of "why" per row. The forms come from the sources named
/// above each table (the references in ../shared/LANGUAGES.md); where a form is not sourced, or
/// the sources disagree, the row says so and which form was chosen.
final class PhraseGrammarTableTests: XCTestCase {
    // Sources: Sources/TalkingClockCore/Phrase.swift and its tests (the clock's English, kept word
    // for word); you-books.com (British Council "500 dudas" 391: the US rarely uses 24-hour);
    // LANGUAGES.md regional variants ("quarter after" is US).
    func testAmericanEnglish() throws {
        let matched = try assertTable(
            "en-US",
            [
                row(
                    "15:45", "12h", "three forty-five PM", "12-hour style says the minutes, no 'quarter' (Phrase.swift)"
                ),
                row("15:05", "12h", "three oh five PM", "minutes under ten get 'oh'"),
                row("15:00", "12h", "three PM", "full hour: no minutes, no o'clock"),
                row("00:00", "12h", "midnight", "never 'twelve AM'"),
                row("12:00", "12h", "noon", "never 'twelve PM'"),
                row("00:15", "12h", "twelve fifteen AM", "the hour after midnight is twelve, AM"),
                row("12:01", "12h", "twelve oh one PM", "the noon hour is PM"),
                row("13:00", "12h", "one PM", "never 'thirteen' in 12-hour style (Digital Pendulum issue #12)"),
                row("11:59", "12h", "eleven fifty-nine AM", "the last AM minute"),
                row("23:59", "12h", "eleven fifty-nine PM", "the last minute of the day"),
                row("09:30", "12h", "nine thirty AM", "US 'nine thirty', not British 'half nine'"),
                row("11:17", "12h", "eleven seventeen AM", "teens are single words"),
                row("21:21", "12h", "nine twenty-one PM", "compounds are one hyphenated id"),
                row("15:45", "12h", "it's three forty-five PM", "the 'its' lead-in", leadIn: "its"),
                row("15:00", "24h", "fifteen hundred", "24-hour full hour (Phrase.swift)"),
                row("15:45", "24h", "fifteen forty-five", "24-hour quarter is plain minutes"),
                row("07:05", "24h", "oh seven oh five", "hours and minutes under ten get 'oh'"),
                row("00:00", "24h", "zero hundred", "the default midnight style"),
                row(
                    "00:00", "24h", "midnight", "the 'midnight' option (MidnightStyle.midnight)", options: ["midnight"]),
                row(
                    "00:15", "24h", "zero zero fifteen",
                    "both hour digits, as 01:05 'oh one oh five'; 0015 'zero zero fifteen' (thegunzone.com)"),
                row("00:05", "24h", "zero zero oh five", "hour 00 as at :15; minutes under ten as ever ('oh five')"),
                row("00:45", "24h", "zero zero forty-five", "the last quarter of hour 00"),
                row("01:05", "24h", "oh one oh five", "a leading zero before another digit is 'oh'"),
                row("23:30", "24h", "twenty-three thirty", "hours past twenty are compounds"),
                row("01:00", "24h", "oh one hundred", "'oh' before a one-digit hour"),
                row("12:00", "24h", "twelve hundred", "no 'noon' in 24-hour style"),
                row("10:00", "24h", "ten hundred", "two-digit hour, no 'oh'"),
                row("15:00", "casual", "three o'clock", "casual full hour"),
                row("15:05", "casual", "five after three", "US 'after' (LANGUAGES.md regional variants)"),
                row("15:15", "casual", "quarter after three", "US 'quarter after'"),
                row("15:30", "casual", "half past three", "'half past' is said in the US too"),
                row("15:45", "casual", "quarter to four", "after the half, the next hour"),
                row("15:50", "casual", "ten to four", "minutes to the next hour"),
                row("15:35", "casual", "twenty-five to four", "from :31 English counts to the next hour"),
                row(
                    "15:07", "casual", "seven minutes after three",
                    "'minutes' after a number that is not a multiple of five"),
                row("15:01", "casual", "one minute after three", "singular 'minute'"),
                row("15:59", "casual", "one minute to four", "singular 'minute', next hour"),
                row("15:58", "casual", "two minutes to four", "plural 'minutes'"),
                row("00:00", "casual", "midnight", "midnight has its word"),
                row("12:00", "casual", "noon", "US 'noon'"),
                row("23:45", "casual", "quarter to twelve", "the wrap at midnight"),
                row("12:45", "casual", "quarter to one", "the wrap at noon: never 'quarter to thirteen'"),
                row("13:00", "casual", "one o'clock", "never 'thirteen o'clock' (Digital Pendulum #12)"),
                row("00:30", "casual", "half past twelve", "the first hour of the day is twelve"),
            ])
        XCTAssertGreaterThanOrEqual(matched, 40, "rows whose phrase the grammar says exactly")
    }

    // Sources: askvity.info (how to tell the time in the UK); reidsguides.com ("half five" = 5:30);
    // you-books.com (British Council 391: "seventeen-oh-five", "sixteen-fifteen", "-hundred" is
    // military); learn-english-now.co ("specify 12 mid-day or 12 midnight").
    func testBritishEnglish() throws {
        let matched = try assertTable(
            "en-GB",
            [
                row("15:00", "casual", "three o'clock", "askvity: full hour"),
                row("15:05", "casual", "five past three", "British 'past'"),
                row("15:10", "casual", "ten past three", "multiples of five need no 'minutes'"),
                row("15:15", "casual", "quarter past three", "askvity: '(a) quarter past'; the clock leaves out 'a'"),
                row("15:20", "casual", "twenty past three", "'past' up to the half"),
                row("15:25", "casual", "twenty-five past three", "compound minute is one id"),
                row("15:30", "casual", "half past three", "full form; 'half three' is informal (reidsguides)"),
                row("15:35", "casual", "twenty-five to four", "after the half, the next hour"),
                row("15:40", "casual", "twenty to four", "next hour"),
                row("15:45", "casual", "quarter to four", "askvity: '(a) quarter to four'"),
                row("15:50", "casual", "ten to four", "askvity: 'ten to four'"),
                row("15:55", "casual", "five to four", "next hour"),
                row("15:01", "casual", "one minute past three", "singular 'minute'"),
                row("15:02", "casual", "two minutes past three", "'minutes' when not a multiple of five"),
                row("15:29", "casual", "twenty-nine minutes past three", "the last 'past' minute"),
                row("15:31", "casual", "twenty-nine minutes to four", "the first 'to' minute"),
                row("15:59", "casual", "one minute to four", "singular, next hour"),
                row("12:00", "casual", "midday", "learn-english-now: 'specify 12 mid-day'"),
                row("00:00", "casual", "midnight", "'(twelve) midnight'"),
                row("23:45", "casual", "quarter to twelve", "the wrap at midnight"),
                row("11:45", "casual", "quarter to twelve", "before noon"),
                row("12:15", "casual", "quarter past twelve", "noon hour is twelve"),
                row("00:15", "casual", "quarter past twelve", "midnight hour is twelve"),
                row("12:45", "casual", "quarter to one", "the wrap at noon"),
                row("13:00", "casual", "one o'clock", "never 'thirteen o'clock'"),
                row("21:30", "casual", "half past nine", "casual is 12-hour"),
                row("01:00", "casual", "one o'clock", "one"),
                row("23:59", "casual", "one minute to twelve", "the last minute of the day"),
                row("15:45", "casual", "it's quarter to four", "the 'its' lead-in", leadIn: "its"),
                row("15:00", "24h", "fifteen hundred", "you-books: 'fifteen hundred' (mostly military)"),
                row("15:05", "24h", "fifteen oh five", "British Council: 'seventeen-oh-five'"),
                row("17:05", "24h", "seventeen oh five", "British Council's own example"),
                row("16:15", "24h", "sixteen fifteen", "British Council: 'sixteen-fifteen'"),
                row("15:30", "24h", "fifteen thirty", "askvity: 'fifteen thirty'"),
                row("15:45", "24h", "fifteen forty-five", "24-hour quarter"),
                row("15:50", "24h", "fifteen fifty", "24-hour"),
                row("12:00", "24h", "twelve hundred", "askvity: 'twelve hundred'"),
                row("00:00", "24h", "zero hundred", "'zero hundred' (military); the 'midnight' option says midnight"),
                row("00:15", "24h", "zero zero fifteen", "en-US's 24h: hour 00 says both digits"),
                row("15:45", "12h", "three forty-five PM", "UK alternates 12- and 24-hour (British Council)"),
                row("00:00", "12h", "midnight", "12h style as en-US"),
                row("12:00", "12h", "noon", "'twelve noon'"),
                row("15:30", "informal", "half three", "LANGUAGES.md: informal 'half three' = 3:30"),
                row("05:30", "informal", "half five", "reidsguides: 'half five' = 5:30"),
                row("09:30", "informal", "half nine", "the hour in progress, never the next (unlike German 'halb')"),
                row("12:30", "informal", "half twelve", "the noon hour"),
                row("00:30", "informal", "half twelve", "the midnight hour is twelve"),
                row("23:30", "informal", "half eleven", "no wrap: the hour in progress"),
                row("15:15", "informal", "quarter past three", "the other quarters as in casual"),
                row("15:45", "informal", "quarter to four", "the next hour after the half"),
                row("15:35", "informal", "twenty-five to four", "after the half, the next hour"),
                row("15:00", "informal", "three o'clock", "full hour as in casual"),
                row("12:00", "informal", "midday", "as casual: 'midday'"),
                row("15:30", "informal", "it's half three", "the 'its' lead-in", leadIn: "its"),
            ])
        XCTAssertGreaterThanOrEqual(matched, 40, "rows whose phrase the grammar says exactly")
    }

    // Sources: DW "Uhrzeiten" (informell/offiziell) and "Uhrzeit: informell (1)/(2)"; yabla
    // lesson 748 ("Uhr" is dropped with Viertel/halb); trau-dich-deutsch.com ("null Uhr");
    // planz.org (casual speech is 12-hour). :20 and :40: DW gives both "zwanzig nach drei" and
    // "zehn vor halb vier"; the clock says "zwanzig nach / zwanzig vor", the form not tied to a region.
    func testGerman() throws {
        let matched = try assertTable(
            "de",
            [
                row("15:00", "casual", "drei Uhr", "DW informell: '(Es ist) drei (Uhr)'"),
                row("15:05", "casual", "fünf nach drei", "DW: 'fünf (Minuten) nach drei'"),
                row("15:10", "casual", "zehn nach drei", "minutes after the hour"),
                row("15:15", "casual", "Viertel nach drei", "DW; no 'Uhr' with Viertel (yabla)"),
                row(
                    "15:20", "casual", "zwanzig nach drei",
                    "sources give both this and 'zehn vor halb vier'; see the comment"),
                row("15:25", "casual", "fünf vor halb vier", "DW: minutes before the half name the next hour"),
                row("15:30", "casual", "halb vier", "DW: halb names the next hour"),
                row("15:35", "casual", "fünf nach halb vier", "DW: 'fünf nach halb vier'"),
                row("15:40", "casual", "zwanzig vor vier", "counted to the next hour"),
                row("15:45", "casual", "Viertel vor vier", "DW: 'Viertel vor vier'"),
                row("15:50", "casual", "zehn vor vier", "DW: 'zehn vor vier'"),
                row("15:55", "casual", "fünf vor vier", "next hour"),
                row(
                    "15:01", "casual", "eine Minute nach drei",
                    "one minute: 'eine Minute' (not sourced; 'eins nach' would sound like one o'clock)"),
                row("15:59", "casual", "eine Minute vor vier", "one minute before the hour"),
                row("15:29", "casual", "eine Minute vor halb vier", "one minute before the half"),
                row("15:31", "casual", "eine Minute nach halb vier", "one minute after the half"),
                row("15:22", "casual", "acht vor halb vier", "any minute can be counted to the half"),
                row("15:37", "casual", "sieben nach halb vier", "and from the half"),
                row("15:07", "casual", "sieben nach drei", "bare numbers for minutes"),
                row("15:48", "casual", "zwölf vor vier", "bare numbers to the hour"),
                row("01:00", "casual", "ein Uhr", "DW informell (2): 'ein Uhr', not 'eins Uhr'"),
                row("13:00", "casual", "ein Uhr", "casual is 12-hour (planz.org)"),
                row("12:30", "casual", "halb eins", "DW informell (2): 'halb eins', not 'halb ein'"),
                row("00:30", "casual", "halb eins", "after midnight the next hour is one"),
                row("13:15", "casual", "Viertel nach eins", "'eins' without Uhr"),
                row("12:45", "casual", "Viertel vor eins", "the wrap at noon"),
                row("23:30", "casual", "halb zwölf", "the wrap at midnight (LANGUAGES.md checklist)"),
                row("23:45", "casual", "Viertel vor zwölf", "the wrap at midnight"),
                row("00:00", "casual", "Mitternacht", "DW: 'zwölf (Uhr nachts) / Mitternacht'"),
                row("12:00", "casual", "zwölf Uhr", "DW: 'zwölf (Uhr mittags)'"),
                row("20:15", "casual", "Viertel nach acht", "planz.org: not 'Viertel nach zwanzig'"),
                row("00:15", "casual", "Viertel nach zwölf", "the first hour of the day is twelve"),
                row("15:30", "casual", "es ist halb vier", "the 'es ist' lead-in", leadIn: "its"),
                row("15:00", "24h", "fünfzehn Uhr", "DW offiziell"),
                row("15:05", "24h", "fünfzehn Uhr fünf", "DW offiziell"),
                row("15:15", "24h", "fünfzehn Uhr fünfzehn", "DW: no Viertel in official style"),
                row("15:25", "24h", "fünfzehn Uhr fünfundzwanzig", "DW offiziell"),
                row("15:30", "24h", "fünfzehn Uhr dreißig", "DW: no halb in official style"),
                row("15:45", "24h", "fünfzehn Uhr fünfundvierzig", "DW offiziell"),
                row("15:50", "24h", "fünfzehn Uhr fünfzig", "DW offiziell"),
                row("00:00", "24h", "null Uhr", "trau-dich-deutsch: 'null Uhr'"),
                row("01:00", "24h", "ein Uhr", "'ein Uhr' in official style too"),
                row("01:01", "24h", "ein Uhr eins", "the minute one is 'eins'"),
                row("21:00", "24h", "einundzwanzig Uhr", "compound hour keeps 'ein-'"),
                row("12:00", "24h", "zwölf Uhr", "DW: 'zwölf Uhr'"),
                row("00:30", "24h", "null Uhr dreißig", "hour zero with minutes"),
                row("23:59", "24h", "dreiundzwanzig Uhr neunundfünfzig", "the last minute"),
            ])
        XCTAssertGreaterThanOrEqual(matched, 40, "rows whose phrase the grammar says exactly")
    }

    // Sources: learnfrenchinboston.com ("heures" never omitted, "minutes" not said);
    // fastfrench.com.au ("demie" after heure(s), "demi" after midi/minuit); golo.co ("une heure",
    // feminine, singular); alaattintorun.tr.gg (official style: plain numbers only);
    // betterlearnfrench.com. "moins" from :35 is the textbooks' form; "trois heures trente-cinq"
    // is also heard.
    func testFrench() throws {
        let matched = try assertTable(
            "fr",
            [
                row("15:00", "casual", "trois heures", "learnfrenchinboston: 'heures' is never omitted"),
                row("15:05", "casual", "trois heures cinq", "'minutes' is not said"),
                row("15:15", "casual", "trois heures et quart", "LANGUAGES.md table"),
                row("15:30", "casual", "trois heures et demie", "fastfrench: 'demie' after heures"),
                row("15:45", "casual", "quatre heures moins le quart", "the next hour, 'moins le quart'"),
                row("15:50", "casual", "quatre heures moins dix", "LANGUAGES.md table"),
                row("15:35", "casual", "quatre heures moins vingt-cinq", "'moins' from :35 (see the comment)"),
                row("15:20", "casual", "trois heures vingt", "before the half"),
                row("15:25", "casual", "trois heures vingt-cinq", "before the half"),
                row("15:34", "casual", "trois heures trente-quatre", "the last minute counted from the hour"),
                row("15:59", "casual", "quatre heures moins une", "minute is feminine: 'une'"),
                row("15:01", "casual", "trois heures une", "feminine 'une'"),
                row("15:21", "casual", "trois heures vingt et une", "feminine, 'et' (traditional spelling)"),
                row("01:00", "casual", "une heure", "golo.co: feminine, singular 'heure'"),
                row("13:00", "casual", "une heure", "casual is 12-hour"),
                row("01:30", "casual", "une heure et demie", "singular heure, 'demie'"),
                row("02:00", "casual", "deux heures", "plural from two"),
                row("12:00", "casual", "midi", "noon's own word"),
                row("12:30", "casual", "midi et demi", "fastfrench: 'demi' after midi"),
                row("00:00", "casual", "minuit", "midnight's own word"),
                row("00:30", "casual", "minuit et demi", "fastfrench: 'demi' after minuit"),
                row("12:15", "casual", "midi et quart", "no 'heures' after midi"),
                row("12:45", "casual", "une heure moins le quart", "LANGUAGES.md: 12:45"),
                row("00:45", "casual", "une heure moins le quart", "after midnight the next hour is one"),
                row("11:45", "casual", "midi moins le quart", "LANGUAGES.md: 'midi moins le quart'"),
                row("23:45", "casual", "minuit moins le quart", "the wrap at midnight"),
                row("23:30", "casual", "onze heures et demie", "casual is 12-hour"),
                row("12:05", "casual", "midi cinq", "noon with minutes"),
                row("00:10", "casual", "minuit dix", "midnight with minutes"),
                row("15:00", "casual", "il est trois heures", "the 'il est' lead-in", leadIn: "its"),
                row("15:00", "24h", "quinze heures", "LANGUAGES.md official"),
                row("15:05", "24h", "quinze heures cinq", "official"),
                row("15:15", "24h", "quinze heures quinze", "alaattintorun: no 'quart' in official"),
                row("15:30", "24h", "quinze heures trente", "alaattintorun: no 'demie' in official"),
                row("15:45", "24h", "quinze heures quarante-cinq", "official"),
                row("15:50", "24h", "quinze heures cinquante", "official"),
                row("18:30", "24h", "dix-huit heures trente", "alaattintorun's own example"),
                row(
                    "00:00", "24h", "zéro heure", "not sourced (sources give only minuit); zero takes singular 'heure'"),
                row("01:00", "24h", "une heure", "feminine singular"),
                row("21:00", "24h", "vingt et une heures", "feminine 'une' in a compound"),
                row("21:21", "24h", "vingt et une heures vingt et une", "feminine hour and minute"),
                row("12:00", "24h", "douze heures", "no 'midi' in official style"),
                row("00:30", "24h", "zéro heure trente", "not sourced, as zéro heure"),
            ])
        XCTAssertGreaterThanOrEqual(matched, 40, "rows whose phrase the grammar says exactly")
    }

    // Sources: RAE "La expresión de la hora (I)" and Ortografía 5.1.1.2 ("las cero horas", 24-hour
    // "Son las dieciocho treinta y cinco"); jmcprl.net (DPD: "Es la una y diez", "Son las diez y
    // media", 12:45 "la una menos cuarto"); gaiser.vansd.org; iscribo.com. The 24-hour ":05" form
    // is not sourced ("cero cinco" chosen, as digits are read); "menos" from :35 as the textbooks.
    func testSpanish() throws {
        let matched = try assertTable(
            "es",
            [
                row("15:00", "casual", "son las tres", "RAE: 'son las tres'"),
                row("15:05", "casual", "son las tres y cinco", "LANGUAGES.md table"),
                row("15:15", "casual", "son las tres y cuarto", "issue 11: 'son las tres y cuarto'"),
                row("15:30", "casual", "son las tres y media", "jmcprl: 'Son las diez y media'"),
                row("15:45", "casual", "son las cuatro menos cuarto", "Spain: next hour 'menos cuarto'"),
                row("15:50", "casual", "son las cuatro menos diez", "LANGUAGES.md table"),
                row("15:35", "casual", "son las cuatro menos veinticinco", "'menos' from :35"),
                row("15:34", "casual", "son las tres y treinta y cuatro", "before :35 counted from the hour"),
                row("15:20", "casual", "son las tres y veinte", "'y' + minutes"),
                row("15:25", "casual", "son las tres y veinticinco", "one-word twenties"),
                row("15:16", "casual", "son las tres y dieciséis", "accented dieciséis"),
                row("15:01", "casual", "son las tres y un minuto", "one minute (not sourced)"),
                row("15:59", "casual", "son las cuatro menos un minuto", "one minute to the next hour"),
                row("01:00", "casual", "es la una", "RAE/jmcprl: singular verb, feminine 'una'"),
                row("13:00", "casual", "es la una", "casual is 12-hour"),
                row("01:10", "casual", "es la una y diez", "jmcprl's own example"),
                row("13:30", "casual", "es la una y media", "singular with minutes"),
                row("12:45", "casual", "es la una menos cuarto", "jmcprl: 12:45 agrees with the hour named"),
                row("00:45", "casual", "es la una menos cuarto", "after midnight"),
                row("12:50", "casual", "es la una menos diez", "singular, next hour"),
                row("02:00", "casual", "son las dos", "plural from two"),
                row(
                    "01:40", "casual", "son las dos menos veinte",
                    "the verb agrees with the hour named (dos), not the hour now"),
                row("12:00", "casual", "es mediodía", "LANGUAGES.md: 'mediodía'"),
                row("00:00", "casual", "es medianoche", "LANGUAGES.md: 'medianoche'"),
                row("12:15", "casual", "son las doce y cuarto", "noon's hour is las doce"),
                row("11:45", "casual", "son las doce menos cuarto", "before noon"),
                row("23:45", "casual", "son las doce menos cuarto", "the wrap at midnight"),
                row("00:30", "casual", "son las doce y media", "the first hour of the day is las doce"),
                row("15:00", "24h", "son las quince horas", "RAE: 'las quince (horas)'"),
                row("15:15", "24h", "son las quince quince", "LANGUAGES.md table"),
                row("15:30", "24h", "son las quince treinta", "LANGUAGES.md table"),
                row("15:45", "24h", "son las quince cuarenta y cinco", "LANGUAGES.md table"),
                row("15:50", "24h", "son las quince cincuenta", "24-hour"),
                row(
                    "18:35", "24h", "son las dieciocho treinta y cinco", "RAE (Onetti): the only sourced 24-hour phrase"
                ),
                row("15:05", "24h", "son las quince cero cinco", "not sourced (see the comment)"),
                row("00:00", "24h", "son las cero horas", "RAE Ortografía: 'las cero horas'"),
                // Doubtful (not sourced): the hour zero with minutes read as digits; the alternative
                // is "son las cero horas y cinco minutos" (RAE's spelled-out style). Digits chosen.
                row("00:05", "24h", "son las cero cero cinco", "not sourced; alternative 'las cero horas y cinco minutos'"),
                row("01:00", "24h", "es la una", "singular; never 'una horas'"),
                row("01:30", "24h", "es la una treinta", "singular in 24-hour style"),
                row("21:00", "24h", "son las veintiuna horas", "feminine hour 'veintiuna'"),
                row("21:21", "24h", "son las veintiuna veintiuno", "feminine hour, masculine minute"),
                row("12:00", "24h", "son las doce horas", "no 'mediodía' in 24-hour style"),
                row("23:59", "24h", "son las veintitrés cincuenta y nueve", "the last minute"),
            ])
        XCTAssertGreaterThanOrEqual(matched, 40, "rows whose phrase the grammar says exactly")
    }

    // Sources: fastitalianlearning.com (A1 time telling); italianoconalessandra.com/orario.html
    // ("È l'una", "sono le ventidue"; 1:xx, noon and midnight take "è"); oneclass.com (McMaster
    // notes); italian-online.de. "mezza" and "mezzo" are both accepted: "mezza" chosen. "meno"
    // from :40 (the sources' examples are :45 and :50). 24-hour "sono le dodici" and the
    // hour zero are not sourced.
    func testItalian() throws {
        let matched = try assertTable(
            "it",
            [
                row("15:00", "casual", "sono le tre", "LANGUAGES.md table"),
                row("15:05", "casual", "sono le tre e cinque", "LANGUAGES.md table"),
                row("15:15", "casual", "sono le tre e un quarto", "LANGUAGES.md table"),
                row("15:30", "casual", "sono le tre e mezza", "'mezza' (or 'mezzo')"),
                row("15:45", "casual", "sono le quattro meno un quarto", "the next hour 'meno un quarto'"),
                row("15:50", "casual", "sono le quattro meno dieci", "LANGUAGES.md table"),
                row("15:40", "casual", "sono le quattro meno venti", "'meno' from :40"),
                row("15:35", "casual", "sono le tre e trentacinque", "before :40 counted from the hour"),
                row("15:20", "casual", "sono le tre e venti", "'e' + minutes"),
                row("15:01", "casual", "sono le tre e un minuto", "one minute (not sourced)"),
                row("15:59", "casual", "sono le quattro meno un minuto", "one minute to the hour"),
                row("15:21", "casual", "sono le tre e ventuno", "'venti' + 'uno' elides"),
                row("15:28", "casual", "sono le tre e ventotto", "'venti' + 'otto' elides"),
                row("15:23", "casual", "sono le tre e ventitré", "accented 'tré' in compounds"),
                row("01:00", "casual", "è l'una", "italianoconalessandra: singular with l'"),
                row("13:00", "casual", "è l'una", "casual is 12-hour"),
                row("01:15", "casual", "è l'una e un quarto", "singular with minutes"),
                row("13:30", "casual", "è l'una e mezza", "singular with the half"),
                row("12:45", "casual", "è l'una meno un quarto", "LANGUAGES.md: 12:45 'È l'una meno un quarto'"),
                row("00:45", "casual", "è l'una meno un quarto", "after midnight"),
                row("01:45", "casual", "sono le due meno un quarto", "the verb agrees with the hour named (due)"),
                row("12:00", "casual", "è mezzogiorno", "italianoconalessandra: 'è mezzogiorno'"),
                row("00:00", "casual", "è mezzanotte", "LANGUAGES.md: 'è mezzanotte'"),
                row("12:30", "casual", "è mezzogiorno e mezza", "noon keeps 'è' with minutes"),
                row("00:15", "casual", "è mezzanotte e un quarto", "midnight keeps 'è' with minutes"),
                row("11:45", "casual", "è mezzogiorno meno un quarto", "noon named, singular verb"),
                row("23:50", "casual", "è mezzanotte meno dieci", "the wrap at midnight"),
                row("02:00", "casual", "sono le due", "plural from two"),
                row("15:00", "24h", "sono le quindici", "LANGUAGES.md official"),
                row("15:05", "24h", "sono le quindici e cinque", "LANGUAGES.md official"),
                row("15:15", "24h", "sono le quindici e quindici", "LANGUAGES.md: no quarto in official"),
                row("15:30", "24h", "sono le quindici e trenta", "LANGUAGES.md: no mezza in official"),
                row("15:45", "24h", "sono le quindici e quarantacinque", "LANGUAGES.md official"),
                row("15:50", "24h", "sono le quindici e cinquanta", "LANGUAGES.md official"),
                row("22:00", "24h", "sono le ventidue", "italianoconalessandra: 'Sono le ventidue'"),
                row("13:00", "24h", "sono le tredici", "24-hour, plural"),
                row("01:00", "24h", "è l'una", "singular in 24-hour style too"),
                row("01:30", "24h", "è l'una e trenta", "singular with minutes"),
                row("12:00", "24h", "sono le dodici", "LANGUAGES.md: not explicitly sourced"),
                row("00:00", "24h", "è mezzanotte", "no sourced 24-hour form; midnight's word"),
                row("00:15", "24h", "sono le zero e quindici", "not sourced; the hour zero in 24-hour style"),
                // Doubtful (not sourced): hour zero with minutes; the alternative is midnight's
                // word, "è mezzanotte e cinque", as :00 says "è mezzanotte". Zero chosen, as digits.
                row("00:05", "24h", "sono le zero e cinque", "not sourced; alternative 'è mezzanotte e cinque'"),
                row("21:00", "24h", "sono le ventuno", "elided compound"),
            ])
        XCTAssertGreaterThanOrEqual(matched, 40, "rows whose phrase the grammar says exactly")
    }

    // Sources: app.colanguage.com ("half één = 12:30", "half twaalf = 11:30"); dutchdaily.app;
    // learndutchfree.com ("Het is één uur"); blogs.transparent.com ("uur" only at the full hour);
    // clarissagosling.com ("ten to half eight" = 7:20; verbly.blog contradicts itself for 3:20
    // and is not used for it); verbly.blog (24-hour "dertien uur dertig", "middernacht").
    // "nul uur" is not sourced.
    func testDutch() throws {
        let matched = try assertTable(
            "nl",
            [
                row("15:00", "casual", "drie uur", "'het is drie uur'"),
                row("15:05", "casual", "vijf over drie", "LANGUAGES.md table"),
                row("15:10", "casual", "tien over drie", "'over' up to the quarter"),
                row("15:15", "casual", "kwart over drie", "LANGUAGES.md table"),
                row("15:20", "casual", "tien voor half vier", "clarissagosling: counted to the half"),
                row("15:25", "casual", "vijf voor half vier", "LANGUAGES.md table"),
                row("15:30", "casual", "half vier", "half names the next hour"),
                row("15:35", "casual", "vijf over half vier", "LANGUAGES.md table"),
                row("15:40", "casual", "tien over half vier", "issue 11: 'tien over half vier'"),
                row("15:45", "casual", "kwart voor vier", "LANGUAGES.md table"),
                row("15:50", "casual", "tien voor vier", "LANGUAGES.md table"),
                row("15:55", "casual", "vijf voor vier", "counted to the hour"),
                row("15:01", "casual", "één minuut over drie", "one minute (not sourced)"),
                row("15:14", "casual", "veertien over drie", "the last 'over' minute"),
                row("15:16", "casual", "veertien voor half vier", "from :16 counted to the half"),
                row("15:29", "casual", "één minuut voor half vier", "one minute before the half"),
                row("15:31", "casual", "één minuut over half vier", "one minute after the half"),
                row("15:44", "casual", "veertien over half vier", "the last minute counted from the half"),
                row("15:46", "casual", "veertien voor vier", "from :46 counted to the hour"),
                row("15:59", "casual", "één minuut voor vier", "one minute to the hour"),
                row("01:00", "casual", "één uur", "learndutchfree: 'één uur' with accents"),
                row("13:00", "casual", "één uur", "casual is 12-hour"),
                row("12:30", "casual", "half één", "colanguage: 12:30, not 1:30"),
                row("00:30", "casual", "half één", "after midnight"),
                row("11:30", "casual", "half twaalf", "colanguage: 'half twaalf' = 11:30"),
                row("23:30", "casual", "half twaalf", "the wrap at midnight"),
                row("23:45", "casual", "kwart voor twaalf", "the wrap at midnight"),
                row("12:45", "casual", "kwart voor één", "the wrap at noon"),
                row("00:00", "casual", "middernacht", "verbly: 'middernacht'"),
                row("12:00", "casual", "twaalf uur", "LANGUAGES.md: 'twaalf uur ('s middags)'"),
                row("15:00", "casual", "het is drie uur", "the 'het is' lead-in", leadIn: "its"),
                row("15:00", "24h", "vijftien uur", "LANGUAGES.md official"),
                row("15:05", "24h", "vijftien uur vijf", "LANGUAGES.md official"),
                row("15:15", "24h", "vijftien uur vijftien", "no kwart in official style"),
                row("15:30", "24h", "vijftien uur dertig", "no half in official style"),
                row("13:30", "24h", "dertien uur dertig", "verbly's own example"),
                row("15:45", "24h", "vijftien uur vijfenveertig", "LANGUAGES.md official"),
                row("15:50", "24h", "vijftien uur vijftig", "LANGUAGES.md official"),
                row("00:00", "24h", "nul uur", "not sourced"),
                row("01:00", "24h", "één uur", "one with accents"),
                row("22:00", "24h", "tweeëntwintig uur", "diaeresis in compounds"),
                row("23:23", "24h", "drieëntwintig uur drieëntwintig", "diaeresis in hour and minute"),
                row("12:00", "24h", "twaalf uur", "official noon"),
            ])
        XCTAssertGreaterThanOrEqual(matched, 40, "rows whose phrase the grammar says exactly")
    }

    // Sources: app.colanguage.com (formal vs colloquial; 24-hour common); robertopolesello.com
    // (feminine ordinals, "kwadrans po" + locative); nailpolishandenglish.blogspot.com ("za" +
    // nominative, "po" + -ej); polishlanguage.info; jcubic/horavox pl.json (patterns, "po
    // północy", 23:xx "dwunasta/dwunastej", 24-hour "zero"). Where this disagrees with horavox:
    // minute 21 is "dwadzieścia jeden" (a compound keeps "jeden"; horavox writes "jedna"), and
    // one minute is "minuta po" / "za minutę" (horavox "jedna po" / "za jedna"), both not sourced.
    func testPolish() throws {
        let matched = try assertTable(
            "pl",
            [
                row("15:00", "casual", "trzecia", "feminine ordinal (godzina)"),
                row("15:05", "casual", "pięć po trzeciej", "'po' + locative (nailpolishandenglish)"),
                row("15:10", "casual", "dziesięć po trzeciej", "'po' + locative"),
                row("15:15", "casual", "kwadrans po trzeciej", "robertopolesello: 'kwadrans po' + locative"),
                row("15:20", "casual", "dwadzieścia po trzeciej", "horavox minutes_past"),
                row("15:25", "casual", "dwadzieścia pięć po trzeciej", "horavox minutes_past"),
                row(
                    "15:30", "casual", "wpół do czwartej",
                    "genitive, next hour; never 'wpół do piętnasta' (Digital Pendulum)"),
                row("15:35", "casual", "za dwadzieścia pięć czwarta", "horavox minutes_to from :31"),
                row("15:40", "casual", "za dwadzieścia czwarta", "'za' + nominative"),
                row("15:45", "casual", "za kwadrans czwarta", "LANGUAGES.md table"),
                row("15:50", "casual", "za dziesięć czwarta", "LANGUAGES.md table"),
                row("15:58", "casual", "za dwie czwarta", "feminine 'dwie' (horavox)"),
                row("15:02", "casual", "dwie po trzeciej", "feminine 'dwie' (horavox)"),
                row("15:01", "casual", "minuta po trzeciej", "one minute (differs from horavox, see the comment)"),
                row("15:59", "casual", "za minutę czwarta", "'za' + accusative 'minutę' (see the comment)"),
                row("15:21", "casual", "dwadzieścia jeden po trzeciej", "compound keeps 'jeden' (see the comment)"),
                row("15:22", "casual", "dwadzieścia dwie po trzeciej", "feminine in compounds"),
                row("01:00", "casual", "pierwsza", "feminine ordinal one"),
                row("13:00", "casual", "pierwsza", "casual is 12-hour: never 'trzynasta'"),
                row("12:00", "casual", "dwunasta", "LANGUAGES.md: 'dwunasta; (w) południe': the first chosen"),
                row("00:00", "casual", "północ", "horavox hours[0]"),
                row("00:05", "casual", "pięć po północy", "horavox hours_alt[0]: 'po północy'"),
                row("00:15", "casual", "kwadrans po północy", "locative of północ"),
                row("00:30", "casual", "wpół do pierwszej", "after midnight the next hour is one"),
                row("12:30", "casual", "wpół do pierwszej", "the wrap at noon"),
                row("12:15", "casual", "kwadrans po dwunastej", "noon's hour is dwunasta"),
                row("23:30", "casual", "wpół do dwunastej", "the wrap at midnight (LANGUAGES.md checklist)"),
                row("23:45", "casual", "za kwadrans dwunasta", "horavox next_hour_midnight: 'dwunasta'"),
                row("11:45", "casual", "za kwadrans dwunasta", "before noon"),
                row("12:45", "casual", "za kwadrans pierwsza", "nominative next hour"),
                row("21:10", "casual", "dziesięć po dziewiątej", "casual is 12-hour"),
                row("15:30", "casual", "jest wpół do czwartej", "the 'jest' lead-in", leadIn: "its"),
                row("15:00", "24h", "piętnasta", "colanguage formal"),
                row("15:05", "24h", "piętnasta pięć", "LANGUAGES.md official"),
                row("15:15", "24h", "piętnasta piętnaście", "LANGUAGES.md official"),
                row("15:30", "24h", "piętnasta trzydzieści", "LANGUAGES.md official"),
                row("15:45", "24h", "piętnasta czterdzieści pięć", "LANGUAGES.md official"),
                row("15:50", "24h", "piętnasta pięćdziesiąt", "LANGUAGES.md official"),
                row("21:00", "24h", "dwudziesta pierwsza", "compound ordinal"),
                row("23:59", "24h", "dwudziesta trzecia pięćdziesiąt dziewięć", "the last minute"),
                row("00:00", "24h", "północ", "horavox modern: full hour 0"),
                row("00:15", "24h", "zero piętnaście", "horavox modern hours_alt[0] 'zero'"),
                row("01:01", "24h", "pierwsza jeden", "masculine minutes in 24-hour style (horavox modern)"),
                row("12:00", "24h", "dwunasta", "official noon"),
            ])
        XCTAssertGreaterThanOrEqual(matched, 40, "rows whose phrase the grammar says exactly")
    }

    // Sources: Irene pronounce_time_ru.py (hour forms; "без" only in the last 20 minutes; "без
    // минуты"; полдень/полночь; digital "ноль" before minutes under 10); enrulangclub.ru
    // ("четверть шестого", "без четверти шесть"); readyrussian.org (the hour in progress);
    // declansoftware.com (час/часа/часов); FSI Russian ch10s12 ("семнадцать тридцать");
    // myshared.ru (teens: genitive plural). Irene says "пол девятого" and "без пяти полночь";
    // LANGUAGES.md gives "половина" first and the issue "половина двенадцатого", and "без пяти
    // двенадцать" is the common idiom: those are chosen. 24-hour "ноль часов" is not sourced.
    func testRussian() throws {
        let matched = try assertTable(
            "ru",
            [
                row("15:00", "casual", "три часа", "declansoftware: 2-4 take 'часа'"),
                row("17:00", "casual", "пять часов", "5 and up take 'часов'"),
                row("13:00", "casual", "час", "LANGUAGES.md: 'час' with no numeral"),
                row("01:00", "casual", "час", "one o'clock is 'час'"),
                row("14:00", "casual", "два часа", "two: 'часа'"),
                row("23:00", "casual", "одиннадцать часов", "eleven: 'часов' (myshared: teens)"),
                row("15:05", "casual", "пять минут четвёртого", "the hour in progress (LANGUAGES.md)"),
                row("15:01", "casual", "одна минута четвёртого", "feminine 'одна минута'"),
                row("15:02", "casual", "две минуты четвёртого", "feminine 'две', 'минуты'"),
                row("15:03", "casual", "три минуты четвёртого", "2-4: 'минуты'"),
                row("15:11", "casual", "одиннадцать минут четвёртого", "teens: 'минут' (myshared)"),
                row("15:12", "casual", "двенадцать минут четвёртого", "teens: 'минут', not 'минуты'"),
                row("15:15", "casual", "четверть четвёртого", "enrulangclub: 'четверть шестого'"),
                row("15:20", "casual", "двадцать минут четвёртого", "Irene: 'двадцать минут девятого'"),
                row("15:21", "casual", "двадцать одна минута четвёртого", "ends in 1: 'одна минута'"),
                row("15:22", "casual", "двадцать две минуты четвёртого", "ends in 2: 'две минуты'"),
                row("15:25", "casual", "двадцать пять минут четвёртого", "ends in 5: 'минут'"),
                row("15:30", "casual", "половина четвёртого", "readyrussian: the hour in progress"),
                row("15:35", "casual", "тридцать пять минут четвёртого", "Irene: 'без' only in the last 20 minutes"),
                row("15:39", "casual", "тридцать девять минут четвёртого", "the last minute before 'без'"),
                row("15:40", "casual", "без двадцати четыре", "Irene: 'без' + genitive from :40"),
                row("15:45", "casual", "без четверти четыре", "enrulangclub: 'без четверти шесть'"),
                row("15:50", "casual", "без десяти четыре", "LANGUAGES.md table"),
                row("15:55", "casual", "без пяти четыре", "genitive 'пяти'"),
                row("15:58", "casual", "без двух четыре", "genitive 'двух'"),
                row("15:59", "casual", "без минуты четыре", "Irene: 'без минуты'"),
                row("12:45", "casual", "без четверти час", "the wrap at noon; one is 'час'"),
                row("00:45", "casual", "без четверти час", "after midnight"),
                row("12:15", "casual", "четверть первого", "the hour in progress after noon is the first"),
                row("00:15", "casual", "четверть первого", "the hour in progress after midnight"),
                row("23:30", "casual", "половина двенадцатого", "LANGUAGES.md checklist: the wrap at midnight"),
                row("11:30", "casual", "половина двенадцатого", "before noon"),
                row("23:55", "casual", "без пяти двенадцать", "the idiom (Irene says 'полночь', see the comment)"),
                row("12:00", "casual", "полдень", "Irene: midday word"),
                row("00:00", "casual", "полночь", "Irene: midnight word"),
                row("08:15", "casual", "четверть девятого", "Irene's own example"),
                row("08:45", "casual", "без четверти девять", "Irene's own example"),
                row("15:30", "casual", "сейчас половина четвёртого", "the 'сейчас' lead-in", leadIn: "its"),
                row("15:00", "24h", "пятнадцать часов", "LANGUAGES.md official"),
                row("15:05", "24h", "пятнадцать ноль пять", "Irene digital: 'ноль' before minutes under 10"),
                row("15:15", "24h", "пятнадцать пятнадцать", "LANGUAGES.md official"),
                row("15:30", "24h", "пятнадцать тридцать", "LANGUAGES.md official"),
                row("17:30", "24h", "семнадцать тридцать", "FSI: 'В семнадцать тридцать'"),
                row("15:45", "24h", "пятнадцать сорок пять", "LANGUAGES.md official"),
                row("15:50", "24h", "пятнадцать пятьдесят", "LANGUAGES.md official"),
                row("13:00", "24h", "тринадцать часов", "LANGUAGES.md: official 13:00"),
                row("21:00", "24h", "двадцать один час", "ends in 1: 'час'"),
                row("22:00", "24h", "двадцать два часа", "ends in 2: 'часа'"),
                row("01:00", "24h", "один час", "numeral said in 24-hour style"),
                row("00:00", "24h", "ноль часов", "not sourced"),
                row("12:00", "24h", "двенадцать часов", "official noon"),
                row("11:00", "24h", "одиннадцать часов", "teens: 'часов'"),
                row("15:21", "24h", "пятнадцать двадцать одна", "the minute keeps its feminine form (not sourced)"),
            ])
        XCTAssertGreaterThanOrEqual(matched, 40, "rows whose phrase the grammar says exactly")
    }

    // Sources: de.tingroom.com and LANGUAGES.md ("viertel/dreiviertel + next hour" in Austria and
    // parts of East Germany); courses.authenticgermanlearning.com ("viertel drei", "drei viertel
    // drei"); the rest is de's (DW). "dreiviertel" is written as one word, as the issue writes it;
    // the source's "drei viertel" is the same spoken form.
    func testAustrianGerman() throws {
        let matched = try assertTable(
            "de-AT",
            [
                row("15:15", "casual", "viertel vier", "tingroom: a quarter of the next hour has passed"),
                row("15:45", "casual", "dreiviertel vier", "tingroom: three quarters of the next hour"),
                row("15:30", "casual", "halb vier", "halb names the next hour, as in de"),
                row("15:00", "casual", "drei Uhr", "full hour as in de"),
                row("01:00", "casual", "ein Uhr", "'ein Uhr', not 'eins Uhr' (DW)"),
                row("13:00", "casual", "ein Uhr", "12-hour casual"),
                row("12:00", "casual", "zwölf Uhr", "noon as in de"),
                row("00:00", "casual", "Mitternacht", "midnight's word"),
                row("15:05", "casual", "fünf nach drei", "minutes after the hour as in de"),
                row("15:10", "casual", "zehn nach drei", "as in de"),
                row("15:14", "casual", "vierzehn nach drei", "just before the quarter: this hour"),
                row("15:16", "casual", "sechzehn nach drei", "just after the quarter: this hour again"),
                row("15:20", "casual", "zwanzig nach drei", "as in de"),
                row("15:25", "casual", "fünf vor halb vier", "relative to the half (DW)"),
                row("15:35", "casual", "fünf nach halb vier", "relative to the half (DW)"),
                row("15:40", "casual", "zwanzig vor vier", "as in de"),
                row("15:44", "casual", "sechzehn vor vier", "just before three quarters"),
                row("15:46", "casual", "vierzehn vor vier", "just after three quarters"),
                row("15:50", "casual", "zehn vor vier", "as in de"),
                row("15:55", "casual", "fünf vor vier", "as in de"),
                row("15:01", "casual", "eine Minute nach drei", "singular minute (de's table)"),
                row("15:59", "casual", "eine Minute vor vier", "singular minute, next hour"),
                row("12:15", "casual", "viertel eins", "the next hour after noon is 'eins'"),
                row("12:45", "casual", "dreiviertel eins", "the wrap at noon"),
                row("12:30", "casual", "halb eins", "DW: 'halb eins'"),
                row("00:15", "casual", "viertel eins", "after midnight"),
                row("00:30", "casual", "halb eins", "after midnight"),
                row("23:45", "casual", "dreiviertel zwölf", "the wrap at midnight"),
                row("11:45", "casual", "dreiviertel zwölf", "before noon"),
                row("11:15", "casual", "viertel zwölf", "the quarter of twelve"),
                row("09:15", "casual", "viertel zehn", "morning"),
                row("09:45", "casual", "dreiviertel zehn", "morning"),
                row("06:15", "casual", "viertel sieben", "early morning"),
                row("20:15", "casual", "viertel neun", "casual speech is 12-hour (planz.org)"),
                row("20:45", "casual", "dreiviertel neun", "12-hour"),
                row("13:15", "casual", "viertel zwei", "12-hour after one"),
                row("15:45", "casual", "es ist dreiviertel vier", "de's lead-in", leadIn: "its"),
                row("15:15", "24h", "fünfzehn Uhr fünfzehn", "official 24-hour, as in de (DW offiziell)"),
                row("15:45", "24h", "fünfzehn Uhr fünfundvierzig", "no viertel in 24-hour style"),
                row("00:00", "24h", "null Uhr", "trau-dich-deutsch: 'null Uhr'"),
                row("01:00", "24h", "ein Uhr", "'ein Uhr'"),
                row("21:15", "24h", "einundzwanzig Uhr fünfzehn", "24-hour compound"),
            ])
        XCTAssertGreaterThanOrEqual(matched, 40, "rows whose phrase the grammar says exactly")
    }

    // Sources: RAE "La expresión de la hora (I)" (in the Americas "cuarto para las ocho" is correct,
    // "cuarto a las ocho" is not); LANGUAGES.md Spanish table ("un cuarto para las cuatro", "diez
    // (minutos) para las cuatro"); jmcprl.net ("es la una", "son las"). Where "para" starts is not
    // sourced: the clock uses it from :35, where Spain's "menos" starts.
    func testLatinAmericanSpanish() throws {
        let matched = try assertTable(
            "es-419",
            [
                row("15:45", "casual", "un cuarto para las cuatro", "RAE: 'cuarto para', not 'cuarto a'"),
                row("15:40", "casual", "veinte para las cuatro", "'veinte para las cuatro'"),
                row("15:50", "casual", "diez para las cuatro", "LANGUAGES.md: 'diez (minutos) para las cuatro'"),
                row("15:55", "casual", "cinco para las cuatro", "counting to the next hour"),
                row("15:35", "casual", "veinticinco para las cuatro", "not sourced: 'para' from :35, as Spain's 'menos'"),
                row("15:36", "casual", "veinticuatro para las cuatro", "not sourced, as :35"),
                row("15:59", "casual", "un minuto para las cuatro", "singular 'minuto'"),
                row("12:45", "casual", "un cuarto para la una", "singular article before 'una'"),
                row("00:45", "casual", "un cuarto para la una", "after midnight"),
                row("12:50", "casual", "diez para la una", "the wrap at noon"),
                row("23:45", "casual", "un cuarto para las doce", "the wrap at midnight"),
                row("11:45", "casual", "un cuarto para las doce", "before noon"),
                row("23:59", "casual", "un minuto para las doce", "the last minute of the day"),
                row("13:40", "casual", "veinte para las dos", "12-hour"),
                row("21:45", "casual", "un cuarto para las diez", "12-hour in the evening"),
                row("07:50", "casual", "diez para las ocho", "morning"),
                row("15:00", "casual", "son las tres", "jmcprl: 'son las'"),
                row("13:00", "casual", "es la una", "'es la una': singular verb and article"),
                row("15:05", "casual", "son las tres y cinco", "as in Spain"),
                row("15:10", "casual", "son las tres y diez", "as in Spain"),
                row("15:15", "casual", "son las tres y cuarto", "as in Spain"),
                row("15:20", "casual", "son las tres y veinte", "as in Spain"),
                row("15:25", "casual", "son las tres y veinticinco", "as in Spain"),
                row("15:30", "casual", "son las tres y media", "as in Spain"),
                row("15:34", "casual", "son las tres y treinta y cuatro", "before :35, 'y'"),
                row("15:01", "casual", "son las tres y un minuto", "singular 'minuto'"),
                row("00:00", "casual", "es medianoche", "LANGUAGES.md: 'medianoche'"),
                row("12:00", "casual", "es mediodía", "LANGUAGES.md: 'mediodía'"),
                row("12:15", "casual", "son las doce y cuarto", "noon hour is las doce"),
                row("12:30", "casual", "son las doce y media", "noon hour"),
                row("00:30", "casual", "son las doce y media", "the first hour of the day is las doce"),
                row("01:15", "casual", "es la una y cuarto", "singular at one"),
                row("01:30", "casual", "es la una y media", "singular at one"),
                row("06:30", "casual", "son las seis y media", "morning"),
                row("15:00", "24h", "son las quince horas", "RAE: 'las quince (horas)', as in es"),
                row("15:45", "24h", "son las quince cuarenta y cinco", "no 'para' in 24-hour style"),
                row("00:00", "24h", "son las cero horas", "RAE Ortografía: 'las cero horas'"),
                row("13:00", "24h", "son las trece horas", "24-hour"),
                row("01:00", "24h", "es la una", "singular at one, as in es"),
                row("21:00", "24h", "son las veintiuna horas", "feminine 'veintiuna'"),
                row("15:05", "24h", "son las quince cero cinco", "not sourced, as in es"),
            ])
        XCTAssertGreaterThanOrEqual(matched, 40, "rows whose phrase the grammar says exactly")
    }
}
