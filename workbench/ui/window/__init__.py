"""The window, which only assembles, its bars, menus, layout and dialogs; the app's start."""
