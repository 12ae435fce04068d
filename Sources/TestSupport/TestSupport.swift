// TestSupport: see README 'Architecture'.
