from site_gen.cli import entry

entry()
