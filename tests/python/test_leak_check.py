"""tests/kernel/lib.sh module_allocs_in: which live kmalloc objects are the module's.

The kernel suite fails a test when objects the module allocated outlive its
volumes; these feed the classifier alloc_traces groups of each kind.
"""
import pathlib
import subprocess

LIB = pathlib.Path(__file__).resolve().parents[2] / "tests" / "kernel" / "lib.sh"

# groups as /sys/kernel/debug/slab/*/alloc_traces prints them
RECORD = """\
      7 ssa_trace_rec_start+0x88/0x190 [dm_ssastripe] waste=504/504 age=4557 pid=367 cpus=0
        __kmalloc+0x49/0x150
        ssa_trace_rec_start+0x88/0x190 [dm_ssastripe]
        ssa_map+0x92b/0xd30 [dm_ssastripe]
        __map_bio+0x4a/0x1d0 [dm_mod]
        dm_submit_bio+0x219/0x560 [dm_mod]
        __submit_bio+0x8c/0x130
"""
WORKQUEUE = """\
      1 alloc_workqueue+0x6d/0x4a0 age=122 pid=262 cpus=0
        kmalloc_trace+0x26/0x90
        alloc_workqueue+0x6d/0x4a0
        ssa_ctr+0x9f3/0xc30 [dm_ssastripe]
        dm_table_add_target+0x16c/0x3a0 [dm_mod]
"""
THROUGH_DM = """\
      2 dm_get_table_device+0x9e/0x2c0 [dm_mod] age=12 pid=262 cpus=1
        kmalloc_trace+0x26/0x90
        dm_get_table_device+0x9e/0x2c0 [dm_mod]
        dm_get_device+0x11c/0x270 [dm_mod]
        ssa_ctr+0x55a/0xc30 [dm_ssastripe]
"""
NULL_BLK = """\
   1942 null_insert_page+0x84/0x1d0 [null_blk] age=3072/3596/4073 pid=44-127 cpus=0-1
        kmalloc_trace+0x26/0x90
        null_insert_page+0x84/0x1d0 [null_blk]
        null_transfer+0x2c0/0x3f0 [null_blk]
        null_handle_cmd+0x59/0x220 [null_blk]
        blk_mq_submit_bio+0x529/0x5f0
        submit_bio_noacct_nocheck+0x32e/0x370
        ssa_dispatch_work+0xb3/0x140 [dm_ssastripe]
        process_one_work+0x1c7/0x380
"""
BELOW_SUBMIT = """\
      3 blk_something+0x10/0x90 age=1 pid=1 cpus=0
        kmalloc_trace+0x26/0x90
        blk_something+0x10/0x90
        submit_bio_noacct_nocheck+0x32e/0x370
        ssa_map+0x92b/0xd30 [dm_ssastripe]
"""
# null_blk loaded by a test: its freed init code named after one of ours
MODULE_INIT = """\
      1 kobject_set_name_vargs+0x1c/0x90 waste=5/5 age=11007 pid=132 cpus=1
        __kmalloc_node_track_caller+0x4a/0x150
        kstrdup+0x32/0x60
        kobject_set_name_vargs+0x1c/0x90
        bus_add_driver+0xab/0x200
        driver_register+0x89/0xe0
        ssa_apply_opts+0x2b/0x60 [dm_ssastripe]
        do_one_initcall+0x59/0x220
        do_init_module+0x4a/0x1f0
"""
# Linux 6.18+: the slab allocator's per-CPU sheaves, kmalloc'ed on the stack
# of whoever emptied or filled the CPU's (seen on 7.2)
SHEAF_ALLOC = """\
      1 __pcs_replace_empty_main+0x284/0x3e0 age=3203 pid=240 cpus=1
        __pcs_replace_empty_main+0x284/0x3e0
        kmem_cache_alloc_noprof+0x388/0x470
        bio_alloc_bioset+0x96/0x580
        ssa_map_data+0x6c6/0x950 [dm_ssastripe]
        __map_bio+0x16c/0x190 [dm_mod]
        dm_submit_bio+0x242/0xba0 [dm_mod]
"""
SHEAF_FREE = """\
      1 __pcs_replace_full_main+0x113/0x3b0 age=2072 pid=247 cpus=1
        __pcs_replace_full_main+0x113/0x3b0
        kmem_cache_free+0x40d/0x470
        mempool_exit+0x77/0xb0
        bioset_exit+0xb5/0x190
        ssa_free+0xd2/0xf0 [dm_ssastripe]
        dm_table_destroy+0x68/0x160 [dm_mod]
"""
KERNEL = """\
     12 kernfs_fop_open+0x1e/0x3c0 age=1/2/3 pid=1 cpus=0
        kmalloc_trace+0x26/0x90
        kernfs_fop_open+0x1e/0x3c0
        do_dentry_open+0x1e5/0x3c0
"""


def module_allocs(tmp_path, *groups):
    files = []
    for i, text in enumerate(groups):
        f = tmp_path / f"kmalloc-{i}"
        f.write_text(text)
        files.append(str(f))
    out = subprocess.run(["bash", "-c", f'. "{LIB}"; module_allocs_in "$@"', "-", *files],
                         check=True, capture_output=True, text=True).stdout
    return [line.split(":", 1)[1].split()[1] for line in out.splitlines()
            if line.startswith(str(tmp_path))]


def test_allocated_in_the_module(tmp_path):
    assert module_allocs(tmp_path, RECORD) == ["ssa_trace_rec_start+0x88/0x190"]


def test_allocated_by_the_kernel_for_the_module(tmp_path):
    assert module_allocs(tmp_path, WORKQUEUE) == ["alloc_workqueue+0x6d/0x4a0"]


def test_dm_core_on_the_modules_behalf(tmp_path):
    assert module_allocs(tmp_path, THROUGH_DM) == ["dm_get_table_device+0x9e/0x2c0"]


def test_member_device_and_block_layer_are_not_the_modules(tmp_path):
    assert module_allocs(tmp_path, NULL_BLK, BELOW_SUBMIT, KERNEL) == []


def test_module_loading_is_not_a_volumes(tmp_path):
    assert module_allocs(tmp_path, MODULE_INIT) == []
    assert module_allocs(tmp_path, MODULE_INIT + RECORD) == ["ssa_trace_rec_start+0x88/0x190"]


def test_groups_and_files_are_kept_apart(tmp_path):
    got = module_allocs(tmp_path, NULL_BLK + RECORD + KERNEL, KERNEL, WORKQUEUE + NULL_BLK)
    assert got == ["ssa_trace_rec_start+0x88/0x190", "alloc_workqueue+0x6d/0x4a0"]


def test_slab_sheaves_are_the_allocators(tmp_path):
    assert module_allocs(tmp_path, SHEAF_ALLOC, SHEAF_FREE) == []
    assert module_allocs(tmp_path, SHEAF_ALLOC + RECORD) == ["ssa_trace_rec_start+0x88/0x190"]
