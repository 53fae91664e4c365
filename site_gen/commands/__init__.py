"""One module per `sitegen` subcommand; each has `add_parser(subparsers)` and `run(args) -> int`."""
