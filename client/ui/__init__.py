"""The drawing and UI parts every screen and table uses: layout, card art, widgets,
animation, fonts, theme, sound."""
