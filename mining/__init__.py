"""mining: near-duplicate detection and page classification, with templates removed first."""
