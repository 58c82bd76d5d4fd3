"""ssa: the analytic disk-array models behind dm-ssastripe, as pure functions.

Modules:
    bsu     optimal stripe unit (BSU) formulas quoted in seed 000, section 3.4

Units: times in seconds, rates in bytes per second and sizes in bytes inside
the package; the CLI (tools/ssa) converts from and to the units users type.
"""

__all__ = ["bsu"]
