"""The screens of the window: the lobby, the waiting room, the new-table form, the table
screen (live and watched), the replay viewer, settings, rules and the bug report."""
