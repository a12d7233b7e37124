"""The table of A card game – what else?: drawing, choreography and card art."""
