"""kwx: contextual-advertising keywords from web pages, with templates removed first."""
