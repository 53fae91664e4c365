from site_gen.cli import main

raise SystemExit(main())
