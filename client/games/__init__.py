"""Each game's table, by game, as shared/games holds each game's rules."""
