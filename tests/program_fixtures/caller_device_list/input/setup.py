from setuptools import setup

setup(name="ctrlib", packages=["ctrlib"])
