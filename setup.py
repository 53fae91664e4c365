"""The one packaging step pyproject.toml cannot declare: the theme's and the sections' templates
compiled into the package (site_gen/render/precompiled.py), for a wheel and an editable install
alike, so that no run compiles them again. Everything else is in pyproject.toml."""
import sys
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py


class BuildPy(build_py):
    def run(self):
        super().run()
        # An editable install runs the package from the checkout: the modules go beside its templates
        # (ignored by git); a wheel's go into what is packaged.
        package = Path(__file__).resolve().parent / "site_gen" if self.editable_mode else Path(self.build_lib) / "site_gen"
        sys.path.insert(0, str(package.parent))
        try:
            from site_gen.render import precompiled
        except ImportError as exc:  # no Jinja where the package is built: templates compile at run time
            print(f"sitegen: templates not precompiled ({exc})", file=sys.stderr)
            return
        finally:
            sys.path.pop(0)
        precompiled.generate(package)


setup(cmdclass={"build_py": BuildPy})
