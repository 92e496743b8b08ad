"""The code editor and what sits on it: highlighting, find/replace, edit actions, controls."""
