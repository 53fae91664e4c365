"""Pure pandas functions: receipt records in, DataFrames out. No HTML, no I/O.

Each module computes one section's figures; `report.analyse` gathers them for one report.
"""
