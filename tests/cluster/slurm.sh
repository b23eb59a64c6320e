#!/bin/sh
# contrib/slurm on a real Slurm cluster: this machine as its one node
# (munged, slurmctld and slurmd started here, tests/cluster/slurm_cluster.sh),
# with 4 stand-in GPUs so that the template's --gpus-per-task is honoured.
# submit.sh --wait runs a tiny batch (vadd.space at 4 sizes) as an array
# of 4 tasks, one shard and one database each, then the dependent merge
# job.  The oracle is the same batch run by 'spacetune batch' without
# shards: the merged database must hold exactly its problems and
# configurations, each once, all ok; each task's database exactly the
# problems of its shard ('--list --shard I/4').  Submitted again, the tasks
# resume and time nothing.  Then an array whose tasks fail: the merge job
# must be cancelled, and submit.sh must say so.
# Skipped (77) only where the daemons cannot start: not root, or the
# Debian packages not installed (./bootstrap installs them as root).
. "${top_srcdir:-.}/tests/tuner/lib.sh"
. "$top_srcdir/tests/cluster/slurm_cluster.sh"
CONTRIB=$(cd "$top_srcdir/contrib/slurm" && pwd)
TASKS=4

if ! why=$(slurm_cluster_can_start); then
	echo "Slurm cluster cannot start here: $why: skipped"
	exit 77
fi
need_opencl
trap 'slurm_cluster_stop; rm -rf "$T"' EXIT
trap 'exit 1' INT TERM HUP

if ! slurm_cluster_start "$T/cluster" "$TASKS"; then
	echo "FAIL the Slurm daemons are installed but the cluster did not come up"
	exit 99
fi
ok "single-node cluster up: $(sinfo -h -o '%N %c CPUs, %G, %T')"

mkdir "$T/work"
cp "$TD/vadd.space" "$TD/vadd.cl" "$TD/vadd_ref.c" "$T/work/"
cat >"$T/work/tiny.batch" <<'BATCH'
strategy random
budget 3
seed 5
problem vadd.space
    set N = 1024, 2048, 4096, 8192
BATCH
cd "$T/work" || exit 99
# Reaches the array's tasks (sbatch exports the environment).
export SPACETUNE_OPTIONS="--repeat 2"

# ---- the array and its dependent merge, as a user submits them
expect_status "submit.sh --wait: $TASKS array tasks, then the merge job" 0 \
	sh "$CONTRIB/submit.sh" --wait tiny.batch db "$TASKS"
sed 's/^/    | /' "$T/out"
for i in 0 1 2 3; do
	check "array task $i ran under Slurm (its output file)" sh -c 'ls db/slurm-*_'"$i"'.out >/dev/null 2>&1'
	"$SPACETUNE" batch tiny.batch --list --shard "$i/$TASKS" | cut -f1 >"shard$i.want"
done
check "the merge job ran under Slurm" sh -c 'ls db/slurm-*-merge.out >/dev/null 2>&1'
check "the merged database exists" test -s db/merged.jsonl

# ---- the oracle: the whole batch in one process, no shards, no Slurm
expect_status "the same batch without shards" 0 \
	"$SPACETUNE" batch tiny.batch --db oracle --no-progress $SPACETUNE_OPTIONS
"$SPACETUNE" batch tiny.batch --list | cut -f1 >all.want

check "merged = unsharded run, shards = --list --shard, each evaluation once, all ok" \
	python3 - "$TASKS" <<'PY'
import glob, json, sys
tasks = int(sys.argv[1])

def records(paths):
    out = []
    for p in paths:
        with open(p) as f:
            out += [json.loads(line) for line in f if line.strip()]
    return out

def problems(keys_file):
    # 'vadd.space N=1024' -> the records' problem field 'N=1024'
    with open(keys_file) as f:
        return {line.split(" ", 1)[1].strip() for line in f if line.strip()}

def configs(recs):
    return [(r["problem"], json.dumps(r["params"], sort_keys=True)) for r in recs]

failures = []
merged = records(["db/merged.jsonl"])
oracle = records(glob.glob("oracle/*.jsonl"))
if not oracle:
    failures.append("the unsharded run recorded nothing")
mc, oc = configs(merged), configs(oracle)
if len(mc) != len(set(mc)):
    failures.append("an evaluation is in the merged database twice")
if set(mc) != set(oc):
    failures.append("merged and unsharded differ: only merged %s, only unsharded %s"
                    % (sorted(set(mc) - set(oc)), sorted(set(oc) - set(mc))))
bad = [(r["problem"], r["params"], r["status"]) for r in merged if r["status"] != "ok"]
if bad:
    failures.append("not ok: %s" % bad)
if {r["problem"] for r in merged} != problems("all.want"):
    failures.append("merged problems %s, batch %s"
                    % (sorted({r["problem"] for r in merged}), sorted(problems("all.want"))))
# One database per task, holding exactly its shard; together all of it.
task_total = 0
for i in range(tasks):
    recs = records(glob.glob("db/task-%d/*.jsonl" % i))
    task_total += len(recs)
    got, want = {r["problem"] for r in recs}, problems("shard%d.want" % i)
    if got != want:
        failures.append("task %d tuned %s, its shard is %s" % (i, sorted(got), sorted(want)))
if task_total != len(merged):
    failures.append("the tasks recorded %d evaluations, the merge holds %d" % (task_total, len(merged)))
for f in failures:
    print("    |", f)
print("    | %d evaluations of %d problems in %d task databases"
      % (len(merged), len({r["problem"] for r in merged}), tasks))
sys.exit(1 if failures else 0)
PY

# ---- the same submission again: every task resumes from its database,
# finds its shard finished and times nothing; the merge is the same bytes.
cat db/task-*/*.jsonl | wc -l >records.before
cp db/merged.jsonl merged.before
expect_status "the same submission again" 0 sh "$CONTRIB/submit.sh" --wait tiny.batch db "$TASKS"
cat db/task-*/*.jsonl | wc -l >records.after
check "no evaluation was timed again ($(cat records.before) records before and after)" \
	cmp -s records.before records.after
check "the merged database is the same, byte for byte" cmp -s merged.before db/merged.jsonl

# ---- a failing array: the dependent merge never runs; submit.sh prints
# each task's missing-work report (a spacetune whose tasks fail, whose
# --report is the real one)
printf '#!/bin/sh\ncase " $* " in *" --report "*) exec "%s" "$@" ;; esac\nexit 1\n' "$SPACETUNE" >failtune
chmod +x failtune
SPACETUNE=$PWD/failtune sh "$CONTRIB/submit.sh" --wait tiny.batch faildb "$TASKS" >"$T/out" 2>"$T/err"
status=$?
check "an array whose tasks fail: submit.sh --wait fails (exit $status)" test "$status" -ne 0
check "it says the merge was cancelled" grep -q "merge job [0-9]* CANCELLED without merging: the array.s tasks did not" "$T/err"
nprob=$("$SPACETUNE" batch tiny.batch --list | wc -l)
grep '^spacetune: batch: incomplete: ' "$T/err" >reports
check "a missing-work report per task ($(wc -l <reports) of $TASKS)" test "$(wc -l <reports)" -eq "$TASKS"
check "together: all $nprob problems unfinished, nothing recorded" \
	test "$(awk '$4 == $6 && / 0 of their evaluations recorded/ { n += $4 } END { print n + 0 }' reports)" -eq "$nprob"
check "no merged database" test ! -e faildb/merged.jsonl
cat db/slurm-*.out >jobs.out 2>/dev/null
check "no sanitizer report in the jobs' output" no_sanitizer_reports jobs.out
finish
