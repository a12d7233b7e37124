"""The Star's table: its star of cards, its choreography and its statistics."""
