"""What is kept on disk: the document, autosave, atomic file writes, settings, lesson edits."""
