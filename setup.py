"""Build hook: compiles the C core in csrc/ through cffi (API mode, out of line).

Everything else about the package lives in pyproject.toml; setuptools reads
``cffi_modules`` only from here.
"""

from setuptools import setup

setup(cffi_modules=["stud_service/_native_build.py:ffibuilder"])
