#!/bin/sh
# Tunes a spacetune batch on a Slurm cluster: a job array of TASKS tasks
# (spacetune-array.sbatch, one shard and one database each), then a job
# that merges their databases once all of them succeeded
# (spacetune-merge.sbatch).  Prints the two job ids.
#   submit.sh [--wait] BATCH DB TASKS [SBATCH OPTION...]
# --wait returns when the merge job has ended, with its status (sbatch --wait).
# The sbatch options (e.g. --partition=gpu --time=2:00:00 --gpus-per-task=2)
# go to the array; SPACETUNE, SPACETUNE_DEVICES and SPACETUNE_OPTIONS
# in the environment reach the jobs (sbatch exports it).
set -eu
usage() {
	echo "usage: $0 [--wait] BATCH DB TASKS [SBATCH OPTION...]" >&2
	exit 2
}
wait=
if [ "${1:-}" = --wait ]; then
	wait=--wait
	shift
fi
[ $# -ge 3 ] || usage
batch=$1 db=$2 tasks=$3
shift 3
case $tasks in '' | *[!0-9]* | 0*) usage ;; esac
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$db"
# --parsable prints "ID" or "ID;CLUSTER".
array=$(sbatch --parsable --array="0-$((tasks - 1))" --output="$db/slurm-%A_%a.out" "$@" \
	"$here/spacetune-array.sbatch" "$batch" "$db")
array=${array%%;*}
echo "array job $array: $tasks tasks"
merge=$(sbatch --parsable $wait --dependency="afterok:$array" --output="$db/slurm-%j-merge.out" \
	"$here/spacetune-merge.sbatch" "$db") || status=$?
merge=${merge%%;*}
echo "merge job $merge: writes $db/merged.jsonl"
[ -n "$wait" ] || exit 0
# sbatch --wait returns 0 for a job cancelled before it started, as the
# merge is when a task fails; a job that started has its output file.
if [ "${status:-0}" -ne 0 ] || [ ! -e "$db/slurm-$merge-merge.out" ]; then
	state=$(scontrol -o show job "$merge" 2>/dev/null | sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p')
	echo "$0: merge job $merge ${state:-ended} without merging: the array's tasks did not" \
		"all succeed (see $db/slurm-${array}_*.out), or the merge failed ($db/slurm-$merge-merge.out)" >&2
	# What each task left to do, from its files (the same submission
	# again does exactly that).
	i=0
	while [ "$i" -lt "$tasks" ]; do
		echo "$0: task $i:" >&2
		"${SPACETUNE:-spacetune}" batch "$batch" --shard "$i/$tasks" --db "$db/task-$i" --report >&2 || true
		i=$((i + 1))
	done
	exit 1
fi
