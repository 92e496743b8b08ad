"""Colour schemes and presentation zoom."""
