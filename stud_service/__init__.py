"""stud-service: a Seven Card Stud, Stud Hi-Lo and Razz game service."""

__version__ = "0.1.0"
