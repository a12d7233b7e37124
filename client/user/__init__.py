"""The user's own files: settings, and where they and the data are kept."""
