"""ssa: the analytic disk-array models behind dm-ssastripe, as pure functions.

Modules:
    bsu         optimal stripe unit (BSU) formulas quoted in seed 000,
                section 3.4
    disk        the disk of seed 002, section 4.1: seek/rotation/service-time
                distributions and moments (eqs. 2-6)
    queues      non-preemptive two-class priority M/G/1 waiting-time moments
                and the K-stage Coxian two-moment fit of seed 002
                (eqs. 19-21, 33-34)
    raid5       RAID 5 and parity striping under BS and AS (seed 002,
                sections 4-5 and its appendix)
    sim         an event simulation of single-block RAID 5 under BS, to check
                the approximations
    array       the real disk-array model of seed 001 (fork-join MVA)
    compare     measured (ssatrace records) against a model
    experiment  the lab's specs, plans and analysis; labrun runs a plan in
                the guest; derive makes tables from a whole experiment
    cli         the command line (tools/ssa, the console script ssa)

Units: times in seconds, rates in bytes per second and sizes in bytes inside
the package; the CLI (tools/ssa) converts from and to the units users type.
"""

__all__ = ["bsu", "disk", "queues"]
