"""The Stars and Bars table: drawing, choreography and card art."""
