"""The repository's own packaging: its root folder is a package too (an __init__.py here)."""
from setuptools import find_packages, setup

setup(name="demo", packages=find_packages())
