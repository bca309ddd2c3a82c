# pip install ./python (offline: Debian's python3-setuptools is all it needs)
from setuptools import setup

setup(
    name="elastoprep",
    version="0.1.0",
    description="Read elastoprep's HDF5 files and run its runtime (contact, reduced Newmark) from Python",
    packages=["elastoprep"],
    python_requires=">=3.9",
    install_requires=["numpy", "h5py"],
)
