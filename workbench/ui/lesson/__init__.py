"""A lesson in the window: its controller, its panel, and its edits kept on disk."""
