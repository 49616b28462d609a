# lit configuration for the FileCheck tests under tests/<suite>/*.py. Each test is a DSL file
# with `# RUN:` and `# CHECK:` lines; %tilec and FileCheck come from the CMake build.
import os
import lit.formats

config.name = "TilePlay"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".py"]
# tests/conformance holds the conformance tools and tests/python the Python package test (Python,
# not DSL files): CTest runs them.
config.excludes = ["lit.cfg.py", "unit", "gpu", "ui", "fuzz", "scripts", "Inputs", "conformance", "python"]
config.test_source_root = os.path.dirname(__file__)

params = lit_config.params
tilec = params.get("tilec", "tilec")
filecheck = params.get("filecheck", "FileCheck")
source_dir = params.get("source_dir", os.path.dirname(os.path.dirname(__file__)))
config.substitutions.append(("%tilec", tilec))
config.substitutions.append(("%samples", os.path.join(source_dir, "samples")))
config.substitutions.append(("FileCheck", filecheck))
config.environment["TILEPLAY_NO_COLOR"] = "1"
