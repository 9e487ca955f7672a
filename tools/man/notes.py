"""What the manual pages of tools/man/gen_fn.py say beyond the API
description: the family of each function, railmpi's notes per family (which
rails carry it, fault behaviour, settings that change it) and the error
classes a call can return, derived from its arguments' kinds and its family.
The classes follow the checks of src/mpi (CHECK_* in src/mpi/mpiimpl.h and
coll_check.h, MPI_FAIL in each binding) and mpi_err_from_status in
src/mpi/errors.c."""
import re

# (family, pattern): the first pattern that matches a name gives its family
FAMILIES = [
    ("rail", r"MPIX_Rail_"),
    ("ulfm", r"MPIX_Comm_(revoke|is_revoked|failure_ack|failure_get_acked|get_failed|ack_failed|i?agree|i?shrink)$"),
    ("abi", r"MPI_Abi_"),
    ("gpu", r"MPIX_(GPU|Query)_"),
    ("mpit", r"MPI_T_"),
    ("convert", r"MPI_\w+_(c2f|f2c|c2f08|f082c)$"),
    ("attr", r"MPI_(\w+_keyval|\w+_attr|Keyval_|Attr_)|MPIX_(Comm|Type|Win)_dup_fn"),
    ("errors", r"MPI_(\w*[Ee]rrhandler\w*|Error_|Add_error|Remove_error)|MPIX_Delete_error"),
    ("bsend", r"MPI_(Buffer_|Comm_\w*_buffer|Session_\w*_buffer)"),
    ("partitioned", r"MPI_(Psend_init|Precv_init|Pready\w*|Parrived)$"),
    ("io", r"MPI_(File_|Register_datarep)"),
    ("rma", r"MPI_(Win_|Put|Get$|Accumulate|Get_accumulate|Fetch_and_op|Compare_and_swap|Rput|Rget|"
            r"Raccumulate|Rget_accumulate)"),
    ("neighbor", r"MPI_Neighbor_"),
    ("coll", r"MPI_(Barrier|Bcast|Gatherv?|Scatterv?|Allgatherv?|Alltoall[vw]?|Reduce|Allreduce|"
             r"Reduce_scatter(_block)?|Scan|Exscan)(_init)?$"),
    ("op", r"MPI_(Op_|Reduce_local)"),
    ("p2p", r"MPI_([BSR]?[Ss]end|Recv|Sendrecv(_replace)?|[BSR]?[Ss]end_init|Recv_init|"
            r"M?[Pp]robe|Mrecv|Start|Startall|Cancel|Get_count)$"),
    ("request", r"MPI_(Wait|Test|Request_|Grequest_|Test_cancelled)|MPIX_Grequest_"),
    ("status", r"MPI_(Status_|Get_elements)"),
    ("session", r"MPI_(Session_|Group_from_session_pset|Comm_create_from_group|Intercomm_create_from_groups)"),
    ("dynamic", r"MPI_(Open_port|Close_port|Comm_accept|Comm_connect|Comm_disconnect|Comm_join|Comm_spawn|"
                r"Comm_get_parent|Publish_name|Unpublish_name|Lookup_name)"),
    ("topology", r"MPI_(Cart|Graph|Dist_graph|Dims_create|Topo_test)"),
    ("info", r"MPI_(Info_|Get_hw_resource_info)"),
    ("datatype", r"MPI_(Type_|Pack|Unpack|Get_address|Address|Aint_)"),
    ("comm", r"MPI_(Comm_|Intercomm_)"),
    ("group", r"MPI_Group_"),
    ("env", r"MPI_"),
]

DOCS = "the RAILMPI_* settings are listed in railmpi's docs/configuration.md and by mpiexec --help-vars"

WIRE = ("Between processes on one host the data goes through shared memory; between hosts over "
        "every rail (network interface) the two hosts share, a large message cut into chunks "
        "striped over the rails (RAILMPI_RAIL_POLICY, RAILMPI_STRIPING_THRESHOLD, "
        "RAILMPI_EAGER_THRESHOLD; RAILMPI_TCP_RAILS or RAILMPI_NET choose the rails).")
FAULTS = ("When a rail fails, the frames it carried that were not yet acknowledged are sent again "
          "over the surviving rails, nothing lost or duplicated, and the call does not notice; the "
          "failed rail is reconnected in the background. Only when every rail to a peer stays down "
          "for RAILMPI_PARTITION_TIMEOUT_S (300 s) do the operations waiting on that peer fail, with "
          "MPI_ERR_OTHER. With RAILMPI_FT=0 nothing is resent and a rail failure fails the "
          "operations at once.")

NOTES = {
    "p2p": [WIRE, FAULTS, "Other settings: " + DOCS + "."],
    "bsend": ["A buffered send uses its communicator's buffer if it has one, else its session's, "
              "else the process's; MPI_BUFFER_AUTOMATIC lets railmpi allocate as needed. "
              "The messages then travel as any other (see MPI_Send(3)).",
              "Other settings: " + DOCS + "."],
    "request": ["Waiting calls poll the progress engine for RAILMPI_SPIN_COUNT passes or "
                "RAILMPI_SPIN_TIME_US, whichever comes first, then yield the core between passes "
                "(RAILMPI_SPIN_OVERSUBSCRIBED when the host's ranks outnumber its cores). "
                "Generalized requests of MPIX_Grequest_start have their poll function called by the "
                "tests and waits.", "Other settings: " + DOCS + "."],
    "partitioned": ["Each partition is sent as its own message as soon as it is marked ready, from "
                    "any thread, over the same channels as point-to-point messages: shared memory on "
                    "one host, striped over every rail between hosts, resent over the surviving rails "
                    "when one fails. See railmpi's docs/partitioned.md."],
    "coll": ["Collectives run as schedules of point-to-point messages, so they travel over the same "
             "rails and survive a rail failure as MPI_Send(3) says; the nonblocking and persistent "
             "forms advance in railmpi's asynchronous progress thread while the program computes "
             "(RAILMPI_ASYNC_PROGRESS).",
             "On one host small collectives go through a shared segment of the communicator "
             "(RAILMPI_COLL_SHM_MAX); across hosts with several ranks per host many go in two levels, "
             "within each host and then between one leader per host (RAILMPI_COLL_HIERARCHICAL). "
             "The algorithms' switch points are the RAILMPI_COLL_* settings; " + DOCS + "."],
    "neighbor": ["Neighbourhood collectives are schedules of point-to-point messages along the "
                 "topology's edges; they travel and survive rail failures as MPI_Send(3) says."],
    "rma": ["One-sided operations travel as active messages over the same channel as point-to-point "
            "messages: resent over a surviving rail after a rail failure and applied exactly once "
            "(an accumulate too). Across hosts bulk puts and gets land in place; small puts and "
            "accumulates travel batched. MPI_Win_allocate_shared needs every rank on one host. "
            "See railmpi's docs/rma.md."],
    "io": ["Files are POSIX files; the processes of a file agree through its communicator and meet "
           "in the file system, so a file on NFS opened from several hosts behaves as a local one. "
           "Nonblocking accesses run on worker threads. A failed system call's errno becomes the "
           "class: ENOENT MPI_ERR_NO_SUCH_FILE, EEXIST MPI_ERR_FILE_EXISTS, EACCES MPI_ERR_ACCESS, "
           "EROFS MPI_ERR_READ_ONLY, ENOSPC MPI_ERR_NO_SPACE, EDQUOT MPI_ERR_QUOTA, any other "
           "MPI_ERR_IO; collective steps agree, so every process gets the same class. "
           "See railmpi's docs/io.md."],
    "mpit": ["railmpi's control variables are its settings, one per RAILMPI_* environment variable "
             "(" + DOCS + "); its performance variables count traffic per rail and per host; its "
             "events are the rail events RAILMPI_VERBOSE=1 prints (a rail failing, recovering, "
             "migrated). The interface works before MPI_Init and after MPI_Finalize, from any "
             "thread. See railmpi's docs/mpit.md."],
    "session": ["A session offers three process sets: mpi://WORLD, mpi://SELF and railmpi://host "
                "(the job's processes on the caller's host). See railmpi's docs/sessions.md."],
    "dynamic": ["MPI_Comm_spawn works under railmpi's mpiexec (onto the spawning rank's host or "
                "another host of its -hosts list, info key host), under MPICH's Hydra and under a "
                "PMIx server that implements PMIx_Spawn; under Slurm it fails with MPI_ERR_SPAWN. "
                "Intercommunicators made here carry messages as MPI_Send(3) says."],
    "topology": ["See railmpi's docs/topology.md."],
    "rail": ["The rail stays connected and probed while traffic is off it, and is used again if "
             "every other rail to a peer fails. The same can be done from another shell while the "
             "job runs: mpiexec -migrate off RAIL (and on RAIL). Rails are numbered as the "
             "RAILMPI_VERBOSE=1 event lines show them."],
    "gpu": ["railmpi moves host memory only."],
    "ulfm": ["Process failures are reported only with RAILMPI_PROC_FT=1 (mpiexec -disable-auto-cleanup); "
             "otherwise a rank's death ends the job. Under srun or Open MPI's mpirun the ranks find a "
             "dead peer themselves (docs/ulfm.md, Launchers). Set MPI_ERRORS_RETURN or a handler of your own on "
             "the communicators you use. A network fault is never a process failure: the rails ride it "
             "out (see MPI_Send(3)). See railmpi's docs/ulfm.md."],
    "convert": ["The call takes no lock and may be made from any thread."],
}
EXTRA_NOTES = {
    "MPI_Comm_split_type": ["MPI_COMM_TYPE_SHARED groups the ranks of one host; the hardware-guided "
                            "and unguided splits follow MPI_Get_hw_resource_info. See railmpi's "
                            "docs/topology.md."],
    "MPI_Get_hw_resource_info": ["See railmpi's docs/topology.md."],
    "MPI_Init": ["MPI_Init reads the RAILMPI_* settings from the environment; a value that does "
                 "not parse stops it with a message naming the variable (" + DOCS + ")."],
    "MPI_Init_thread": ["MPI_THREAD_MULTIPLE is provided: every call then takes one global lock, "
                        "which blocking calls release while they wait."],
    "MPI_Abort": ["railmpi prints \"railmpi: rank R called MPI_Abort with error code E\", asks the "
                  "launcher to end the whole job, whatever the communicator, and exits with errorcode."],
    "MPI_Finalize": ["MPI_Finalize waits until everything the process sent has been acknowledged, "
                     "then closes every rail's connections."],
    "MPI_Wtime": ["The call takes no lock and may be made from any thread."],
    "MPI_Wtick": ["The call takes no lock and may be made from any thread."],
    "MPI_Win_allocate_shared": ["All ranks of the communicator must be on one host, else every rank "
                                "gets MPI_ERR_RMA_SHARED."],
}


# Calls that work before MPI_Init and after MPI_Finalize besides those whose
# bindings say so with MPI_BEGIN_ANYTIME (gen_fn.py reads src/mpi for them):
# these check their arguments only.
ANYTIME = ["MPI_Initialized", "MPI_Finalized", "MPI_Get_version", "MPI_Get_library_version",
           "MPI_Error_string", "MPI_Error_class", "MPI_Session_init"]
SEE_ALSO_TOOLS = {"rail": ["mpiexec", "railstat"], "ulfm": ["mpiexec"], "mpit": ["railstat"], "dynamic": ["mpiexec"],
                  "env": ["mpiexec", "mpicc"]}


def family(name):
    # the nonblocking forms (MPI_Isend, MPI_Ibcast, MPI_Imrecv) are in their blocking form's family
    nb = re.sub(r"^MPI_I([a-z])", lambda m: "MPI_" + m.group(1).upper(), name)
    for fam, pat in FAMILIES:
        if re.match(pat, name) or fam in ("p2p", "coll", "neighbor") and re.match(pat, nb):
            return fam
    return "env"


def notes(name, fam):
    return NOTES.get(fam, []) + EXTRA_NOTES.get(name, [])


COUNT_ARGS = re.compile(r"^(count|\w+count|\w+counts|\w+_count|incount)$")
RANK_ARGS = {"dest", "source", "target_rank", "local_leader", "remote_leader", "rank"}
TAG_ARGS = {"tag", "sendtag", "recvtag"}
COMM_FAMS = {"ulfm", "p2p", "coll", "neighbor", "rma", "partitioned", "request", "bsend", "dynamic"}

T_TEXT = {
    "MPI_T_ERR_NOT_INITIALIZED": "MPI_T_init_thread has not been called",
    "MPI_T_ERR_INVALID": "an argument is not valid (a NULL pointer, a bad value)",
    "MPI_T_ERR_INVALID_INDEX": "the index names no variable, category, event type or source",
    "MPI_T_ERR_INVALID_ITEM": "the item is not in the enumeration",
    "MPI_T_ERR_INVALID_NAME": "no variable, category or event type has that name",
    "MPI_T_ERR_INVALID_HANDLE": "the handle, registration or enumeration is not valid",
    "MPI_T_ERR_INVALID_SESSION": "the performance variable session is not valid",
    "MPI_T_ERR_MEMORY": "out of memory",
    "MPI_T_ERR_CVAR_SET_NOT_NOW": "the setting cannot change while the job runs",
    "MPI_T_ERR_CVAR_SET_NEVER": "the setting is the launcher's and cannot be written",
    "MPI_T_ERR_PVAR_NO_STARTSTOP": "railmpi's performance variables are continuous",
    "MPI_T_ERR_PVAR_NO_WRITE": "the variable cannot be written",
}


def t_errors(f):
    n, names = f.name, [a.name for a in f.args]
    errs = ["MPI_T_ERR_NOT_INITIALIZED"] if n != "MPI_T_init_thread" else []
    if f.args:
        errs.append("MPI_T_ERR_INVALID")
    if any(a.endswith("index") for a in names) and not n.endswith("_get_index"):
        errs.append("MPI_T_ERR_INVALID_INDEX")
    if n == "MPI_T_enum_get_item":
        errs.append("MPI_T_ERR_INVALID_ITEM")
    if n.endswith("_get_index"):
        errs.append("MPI_T_ERR_INVALID_NAME")
    if any(a in ("handle", "event_registration", "event_instance") for a in names) or n.startswith("MPI_T_enum"):
        errs.append("MPI_T_ERR_INVALID_HANDLE")
    if n.startswith("MPI_T_pvar_") and "session" in names and n != "MPI_T_pvar_session_create":
        errs.append("MPI_T_ERR_INVALID_SESSION")
    if n.endswith(("_alloc", "_session_create", "_get_info")):
        errs.append("MPI_T_ERR_MEMORY")
    if n == "MPI_T_cvar_write":
        errs += ["MPI_T_ERR_CVAR_SET_NOT_NOW", "MPI_T_ERR_CVAR_SET_NEVER"]
    if n in ("MPI_T_pvar_start", "MPI_T_pvar_stop"):
        errs.append("MPI_T_ERR_PVAR_NO_STARTSTOP")
    if n in ("MPI_T_pvar_write", "MPI_T_pvar_readreset", "MPI_T_pvar_reset"):
        errs.append("MPI_T_ERR_PVAR_NO_WRITE")
    return [(e, T_TEXT[e]) for e in errs]


HANDLE_CLASS = {"comm": "MPI_ERR_COMM", "datatype": "MPI_ERR_TYPE", "group": "MPI_ERR_GROUP",
                "op": "MPI_ERR_OP", "request": "MPI_ERR_REQUEST", "message": "MPI_ERR_REQUEST",
                "win": "MPI_ERR_WIN", "file": "MPI_ERR_FILE", "info": "MPI_ERR_INFO",
                "session": "MPI_ERR_SESSION", "errhandler": "MPI_ERR_ERRHANDLER"}
ARG_TEXT = {"MPI_ERR_COMM": "%s not a valid communicator",
            "MPI_ERR_TYPE": "%s not a valid datatype, or not committed",
            "MPI_ERR_GROUP": "%s not a valid group",
            "MPI_ERR_OP": "%s not a valid operation, or not defined for the datatype",
            "MPI_ERR_REQUEST": "%s not a valid request (or message handle), or not in a state the call accepts",
            "MPI_ERR_WIN": "%s not a valid window",
            "MPI_ERR_FILE": "%s not a valid file handle",
            "MPI_ERR_INFO": "%s not a valid info object",
            "MPI_ERR_SESSION": "%s not a valid session",
            "MPI_ERR_ERRHANDLER": "%s not a valid error handler, or of the wrong kind",
            "MPI_ERR_KEYVAL": "%s not a valid attribute key, or of the wrong kind",
            "MPI_ERR_BUFFER": "%s NULL where data is to be moved",
            "MPI_ERR_COUNT": "%s negative",
            "MPI_ERR_RANK": "%s not a rank of the communicator or window, nor MPI_PROC_NULL",
            "MPI_ERR_TAG": "%s negative or above MPI_TAG_UB",
            "MPI_ERR_ROOT": "%s not a rank of the communicator (on an intercommunicator: nor MPI_ROOT or MPI_PROC_NULL)"}
NO_MEM = ("MPI_ERR_NO_MEM", "out of memory")
FIT = ("MPI_ERR_TRUNCATE", "the data does not fit in the output buffer")
SAME = ("MPI_ERR_NOT_SAME", "the processes passed different values")
# Classes a binding raises that the arguments' kinds do not imply (tools/man/gen_fn.py
# was checked against the MPI_ERR_* each PMPI_ function of src/mpi names).
EXTRA_ERRORS = {
    "MPI_Pready_list": [NO_MEM], "MPI_Sendrecv_replace": [NO_MEM], "MPI_Isendrecv_replace": [NO_MEM],
    "MPI_Pack": [FIT], "MPI_Unpack": [FIT], "MPI_Pack_external": [FIT], "MPI_Unpack_external": [FIT],
    "MPI_Type_create_subarray": [("MPI_ERR_DIMS", "ndims is not positive")],
    "MPI_Type_create_darray": [("MPI_ERR_DIMS", "ndims is not positive, or the grid does not match size")],
    "MPI_Group_translate_ranks": [("MPI_ERR_RANK", "a rank of ranks1 is not a rank of group1"),
                                  ("MPI_ERR_COUNT", "n is negative")],
    "MPI_Dist_graph_create": [("MPI_ERR_RANK", "a source or destination is not a rank of comm_old")],
    "MPI_Cart_get": [NO_MEM], "MPI_Cart_map": [NO_MEM],
    "MPI_Alloc_mem": [("MPI_ERR_SIZE", "size is negative")],
    "MPI_Add_error_class": [NO_MEM], "MPI_Add_error_code": [NO_MEM], "MPI_Add_error_string": [NO_MEM],
    "MPI_Grequest_start": [NO_MEM],
    "MPI_Win_shared_query": [("MPI_ERR_RMA_FLAVOR", "the window was not made by MPI_Win_allocate_shared")],
    "MPI_Win_attach": [NO_MEM, ("MPI_ERR_SIZE", "size is negative")],
    "MPI_Win_free": [("MPI_ERR_RMA_SYNC", "an epoch of the window is still open")],
    "MPI_File_delete": [("MPI_ERR_BAD_FILE", "the name is not a valid file name (a directory, too long)")],
    "MPI_File_set_size": [SAME], "MPI_File_preallocate": [SAME],
    "MPI_File_seek_shared": [SAME], "MPI_File_set_atomicity": [SAME],
}


def errors(f, fam, anytime=False, proc_ft=False):
    """[(class, why)] the call can return, most specific first; proc_ft: the
    header has the process fault tolerance classes (MPIX_ERR_PROC_FAILED)."""
    n = f.name
    if n.startswith("MPI_T_"):
        return t_errors(f)
    if f.ret != "int" or n.startswith("MPIX_Query") or n.endswith("_dup_fn") or n == "MPI_Abort":
        return []
    errs = {}

    def add(cls, why):
        errs.setdefault(cls, why)

    # per class, the arguments that can cause it, in order
    by = {}
    for a in f.args:
        k, an = a.kind, a.name
        cls = None
        if k.startswith("h."):
            if not (k.endswith("_out") and not k.endswith("_arr_out")):
                cls = HANDLE_CLASS[k[2:].split("_")[0]]
        elif k == "keyval" or an.endswith("keyval") and k.endswith("inout"):
            cls = "MPI_ERR_KEYVAL"
        elif k.startswith("choice") and fam != "mpit":
            cls = "MPI_ERR_BUFFER"
        elif k in ("int", "int_arr_in", "count") and COUNT_ARGS.match(an):
            cls = "MPI_ERR_COUNT"
        elif k == "int" and an in RANK_ARGS and fam != "errors":
            cls = "MPI_ERR_RANK"
        elif k == "int" and an in TAG_ARGS:
            cls = "MPI_ERR_TAG"
        elif k == "int" and an == "root":
            cls = "MPI_ERR_ROOT"
        if cls:
            by.setdefault(cls, []).append(an)
    for cls, names in by.items():
        who = (names[0] if len(names) == 1 else "one of " + ", ".join(names)) + " is"
        why = ARG_TEXT[cls] % who
        if cls == "MPI_ERR_BUFFER" and fam in ("coll", "neighbor") and len(names) > 1:
            why += ", or the send and receive buffers are the same (use MPI_IN_PLACE)"
        if cls == "MPI_ERR_RANK" and "source" in names:
            why += " (MPI_ANY_SOURCE is valid)"
        if cls == "MPI_ERR_TAG" and ("recvtag" in names or re.search(r"(probe|[Rr]ecv|_init)$", n) and "source" in
                                     [a.name for a in f.args]):
            why += " (MPI_ANY_TAG is valid where a message is received)"
        add(cls, why)
    # a receive that completes in the call (a request's completion reports it later)
    receives = any(a.kind in ("choice_out", "choice_inout") for a in f.args) and \
        not any(a.kind == "h.request_out" for a in f.args)
    if fam in ("p2p", "request", "coll", "neighbor") and (receives or re.match(r"MPI_(Wait|Test)", n)):
        add("MPI_ERR_TRUNCATE", "a message was longer than the receive buffer")
    if n in ("MPI_Waitall", "MPI_Testall", "MPI_Waitsome", "MPI_Testsome"):
        add("MPI_ERR_IN_STATUS", "some operations failed: each status's MPI_ERROR field says which")
    if fam in ("topology", "neighbor") and any(a.kind == "h.comm" for a in f.args) and not n.endswith("create"):
        add("MPI_ERR_TOPOLOGY", "the communicator has no topology of the kind the call needs")
    if fam == "topology" and any(a.name in ("ndims", "dims", "maxdims") for a in f.args):
        add("MPI_ERR_DIMS", "a dimension count or size is not valid")
    if fam == "rma":
        if any(a.name == "target_disp" for a in f.args):
            add("MPI_ERR_RMA_SYNC", "the target is not in an access epoch of the caller")
            add("MPI_ERR_RMA_RANGE", "the access falls outside the target's window")
        if re.match(r"MPI_Win_(fence|start|complete|post|wait|test|lock|unlock|flush|sync)", n):
            add("MPI_ERR_RMA_SYNC", "the call does not fit the window's synchronisation state")
        if any(a.name == "assert" for a in f.args):
            add("MPI_ERR_ASSERT", "assert holds an unknown MPI_MODE_* flag")
        if any(a.name == "lock_type" for a in f.args):
            add("MPI_ERR_LOCKTYPE", "lock_type is neither MPI_LOCK_EXCLUSIVE nor MPI_LOCK_SHARED")
        if any(a.name == "disp_unit" and a.kind == "int" for a in f.args):
            add("MPI_ERR_DISP", "disp_unit is not positive")
        if n in ("MPI_Win_create", "MPI_Win_allocate", "MPI_Win_allocate_shared"):
            add("MPI_ERR_SIZE", "size is negative")
            add("MPI_ERR_NO_MEM", "the window's memory could not be had, on some rank")
        if n in ("MPI_Win_allocate_shared", "MPI_Win_shared_query"):
            add("MPI_ERR_RMA_SHARED", "the ranks are not all on one host, or the window is not shared")
        if n in ("MPI_Win_attach", "MPI_Win_detach"):
            add("MPI_ERR_RMA_ATTACH", "the memory cannot be attached, or was not attached")
            add("MPI_ERR_RMA_FLAVOR", "the window was not made by MPI_Win_create_dynamic")
    if fam == "io":
        if n in ("MPI_File_open",):
            add("MPI_ERR_AMODE", "amode is not a valid combination of MPI_MODE_* flags")
            add("MPI_ERR_NO_SUCH_FILE", "the file does not exist and MPI_MODE_CREATE was not given")
            add("MPI_ERR_FILE_EXISTS", "the file exists and MPI_MODE_EXCL was given")
            add("MPI_ERR_ACCESS", "permission denied")
            add("MPI_ERR_BAD_FILE", "the name is not a valid file name (a directory, too long)")
            add("MPI_ERR_NOT_SAME", "the processes passed different amode or file names")
        if n == "MPI_File_delete":
            add("MPI_ERR_NO_SUCH_FILE", "the file does not exist")
            add("MPI_ERR_ACCESS", "permission denied")
        if re.match(r"MPI_File_i?read", n):
            add("MPI_ERR_ACCESS", "the file was opened write-only")
        if re.match(r"MPI_File_(i?write|set_size|preallocate)", n):
            add("MPI_ERR_READ_ONLY", "the file was opened read-only")
            add("MPI_ERR_NO_SPACE", "the file system is full")
            add("MPI_ERR_QUOTA", "the quota is exceeded")
        if re.match(r"MPI_File_(i?read|i?write|seek|set_size|preallocate|get_position$)", n):
            add("MPI_ERR_UNSUPPORTED_OPERATION", "the file was opened with MPI_MODE_SEQUENTIAL")
        if n in ("MPI_File_set_view",):
            add("MPI_ERR_UNSUPPORTED_DATAREP", "datarep names no known data representation")
            add("MPI_ERR_NOT_SAME", "the processes passed different data representations")
        if n == "MPI_Register_datarep":
            add("MPI_ERR_DUP_DATAREP", "a representation of that name is registered already")
        if re.match(r"MPI_File_(i?read|i?write|set_view|get_type_extent)", n):
            add("MPI_ERR_CONVERSION", "a data conversion function failed")
        if not n.endswith(("errhandler", "c2f", "f2c")) and not n.startswith(("MPI_File_get_", "MPI_File_set_errh")):
            add("MPI_ERR_IO", "the file system reported another error")
    if fam == "info":
        if any(a.name == "key" for a in f.args):
            add("MPI_ERR_INFO_KEY", "the key is empty or longer than MPI_MAX_INFO_KEY")
        if n == "MPI_Info_set":
            add("MPI_ERR_INFO_VALUE", "the value is empty or longer than MPI_MAX_INFO_VAL")
        if n == "MPI_Info_delete":
            add("MPI_ERR_INFO_NOKEY", "the key is not set")
    if fam == "dynamic":
        if any(a.name == "port_name" and a.kind == "str_in" for a in f.args):
            add("MPI_ERR_PORT", "port_name is not a valid port, or nobody listens there")
        if n in ("MPI_Publish_name", "MPI_Unpublish_name"):
            add("MPI_ERR_SERVICE", "the service name cannot be published or was not published")
        if n == "MPI_Lookup_name":
            add("MPI_ERR_NAME", "no port is published under the service name")
        if n.startswith("MPI_Comm_spawn"):
            add("MPI_ERR_SPAWN", "the processes could not be started, or the launcher cannot spawn")
    if fam in COMM_FAMS or fam == "io" and re.match(r"MPI_File_(open|close|\w+_all|\w+_ordered|\w+_shared|set_view|sync)", n):
        add("MPI_ERR_PROC_ABORTED", "a process the call communicates with has ended")
    if any(a.kind.startswith("h.") and a.kind.endswith("_out") and a.kind != "h.request_out" for a in f.args) \
            or n in ("MPI_Alloc_mem", "MPI_Buffer_attach"):
        add("MPI_ERR_NO_MEM", "out of memory")
    if f.args:
        add("MPI_ERR_ARG", "another argument is not valid (a NULL pointer for a result, a value out of range)")
    for cls, why in EXTRA_ERRORS.get(n, []):
        add(cls, why)
    if proc_ft and (fam in COMM_FAMS) and any(a.kind.startswith("h.comm") or a.kind.startswith("h.request")
                                              or a.kind == "h.win" for a in f.args):
        add("MPIX_ERR_PROC_FAILED", "a process the call depends on has failed (reported with RAILMPI_PROC_FT=1)")
        if any(a.kind.startswith("h.comm") or a.kind == "h.win" for a in f.args) and n != "MPIX_Comm_revoke":
            add("MPIX_ERR_REVOKED", "the communicator was revoked (MPIX_Comm_revoke)")
    if f.name in ("MPI_Init", "MPI_Init_thread"):
        add("MPI_ERR_OTHER", "MPI is already initialized, or the start failed (a setting that does not "
            "parse, no launcher to reach)")
    elif anytime:
        pass
    elif fam in COMM_FAMS:
        add("MPI_ERR_OTHER", "MPI is not initialized or already finalized, or every rail to a peer "
            "stayed down for RAILMPI_PARTITION_TIMEOUT_S")
    else:
        add("MPI_ERR_OTHER", "MPI is not initialized (MPI_Init or MPI_Session_init) or already finalized")
    return list(errs.items())
