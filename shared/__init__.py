"""Code used by both the Starhall server and client: cards, the engine contract, the log codec."""
