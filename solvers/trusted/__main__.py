"""``python -I -S -m solvers.trusted``: the checker's process entry, which is :mod:`solvers.trusted.runner`."""

from solvers.trusted.runner import run

if __name__ == "__main__":
    run()
