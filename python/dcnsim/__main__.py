"""``python -m dcnsim`` runs the command line."""

from .cli import main

main()
