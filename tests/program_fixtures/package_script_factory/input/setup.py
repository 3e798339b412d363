from setuptools import setup

setup(name="playground", packages=["mnist"])
