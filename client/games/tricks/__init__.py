"""The trick games' table (Stars and Stardeck Hearts): drawing, choreography and scores."""
