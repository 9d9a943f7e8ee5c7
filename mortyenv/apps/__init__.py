"""The `morty` commands a person uses: play and replay in the terminal, analyse a position,
serve the web page, and the demo. Each module has `add_arguments(parser)` and `run(args)`.
"""
