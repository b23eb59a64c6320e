# A real single-node Slurm cluster for the tests (sourced): munged,
# slurmctld and slurmd from Debian's packages, all state, sockets, logs
# and configuration under one directory, on ports nobody else is using.
#
#   slurm_cluster_start DIR GPUS   starts it (GPUS: the node's gres/gpu
#                                  count, 0 for none) and waits until the
#                                  node is idle; exports SLURM_CONF so that
#                                  sbatch, squeue and scontrol talk to it.
#   slurm_cluster_stop             stops the daemons it started (by pid).
#
# The caller installs a trap that calls slurm_cluster_stop, so the daemons
# go away however the test ends.  slurm_cluster_can_start says why the
# daemons cannot start here (not root, packages missing), for a skip.
#
# Why these settings: proctrack/linuxproc and task/none need no cgroups
# (a container or CI machine may not delegate them); select/cons_tres with
# CR_CPU lets array tasks share the node one CPU each; a gres/gpu with a
# count and no device files lets jobs ask --gpus-per-task on a machine
# without GPUs (Slurm counts them but has nothing to bind, so the jobs
# see whatever OpenCL devices the machine has: PoCL in CI).  MinJobAge=16
# keeps sbatch --wait polling every 8 s: it backs off towards 32 s unless
# finished jobs may be purged sooner.

slurm_cluster_can_start() { # prints the reason and fails when it cannot
	if [ "$(id -u)" != 0 ]; then
		echo "not root: slurmd must run as root to start jobs as their user"
		return 1
	fi
	for prog in munged slurmctld slurmd sbatch scontrol; do
		if ! command -v "$prog" >/dev/null 2>&1 && [ ! -x "/usr/sbin/$prog" ]; then
			echo "$prog is not installed (Debian: apt-get install munge slurmctld slurmd slurm-client; ./bootstrap does it as root)"
			return 1
		fi
	done
	return 0
}

# A TCP port on 127.0.0.1 that nothing listens on now.
slurm_free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

slurm_cluster_log_tail() { # the daemons' logs, for a failure report
	for log in "$SLURM_DIR"/log/*.log; do
		[ -f "$log" ] || continue
		echo "---- $log (last 20 lines)"
		tail -n 20 "$log"
	done
}

slurm_cluster_start() { # dir gpus
	SLURM_DIR=$1
	gpus=$2
	PATH=$PATH:/usr/sbin
	node=$(hostname -s)
	cpus=$(nproc)
	mkdir -p "$SLURM_DIR/munge" "$SLURM_DIR/state" "$SLURM_DIR/spool/$node" "$SLURM_DIR/log" \
		"$SLURM_DIR/run" "$SLURM_DIR/gpu"
	chmod 700 "$SLURM_DIR" "$SLURM_DIR/munge"

	# munge: a fresh key, and a daemon of our own on a socket of our own.
	dd if=/dev/urandom of="$SLURM_DIR/munge/munge.key" bs=1024 count=1 2>/dev/null
	chmod 400 "$SLURM_DIR/munge/munge.key"
	munge_socket=$SLURM_DIR/munge/munge.socket
	munged --force --key-file="$SLURM_DIR/munge/munge.key" --socket="$munge_socket" \
		--pid-file="$SLURM_DIR/run/munged.pid" --log-file="$SLURM_DIR/log/munged.log" \
		--seed-file="$SLURM_DIR/munge/munged.seed" || {
		echo "munged did not start"
		slurm_cluster_log_tail
		return 1
	}

	ctld_port=$(slurm_free_port)
	slurmd_port=$(slurm_free_port)
	[ "$slurmd_port" != "$ctld_port" ] || slurmd_port=$((ctld_port + 1))
	gres_node="" gres_types=""
	if [ "$gpus" -gt 0 ]; then
		gres_types="GresTypes=gpu"
		gres_node="Gres=gpu:$gpus"
		# Slurm drops a GPU without a device file; empty files stand in.
		i=0
		while [ "$i" -lt "$gpus" ]; do
			: >"$SLURM_DIR/gpu/fake$i"
			i=$((i + 1))
		done
		printf 'AutoDetect=off\nNodeName=%s Name=gpu File=%s/gpu/fake[0-%d]\n' \
			"$node" "$SLURM_DIR" $((gpus - 1)) >"$SLURM_DIR/gres.conf"
	fi
	cat >"$SLURM_DIR/slurm.conf" <<CONF
ClusterName=spacectest
SlurmctldHost=$node(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$munge_socket
StateSaveLocation=$SLURM_DIR/state
SlurmdSpoolDir=$SLURM_DIR/spool/%n
SlurmctldPidFile=$SLURM_DIR/run/slurmctld.pid
SlurmdPidFile=$SLURM_DIR/run/slurmd.pid
SlurmctldLogFile=$SLURM_DIR/log/slurmctld.log
SlurmdLogFile=$SLURM_DIR/log/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/builtin
SlurmdParameters=config_overrides
ReturnToService=2
MpiDefault=none
MinJobAge=16
$gres_types
NodeName=$node NodeAddr=127.0.0.1 CPUs=$cpus State=UNKNOWN $gres_node
PartitionName=test Nodes=$node Default=YES MaxTime=INFINITE State=UP
CONF
	SLURM_CONF=$SLURM_DIR/slurm.conf
	export SLURM_CONF

	slurmctld -f "$SLURM_CONF" -i || {
		echo "slurmctld did not start"
		slurm_cluster_log_tail
		return 1
	}
	slurmd -f "$SLURM_CONF" -N "$node" || {
		echo "slurmd did not start"
		slurm_cluster_log_tail
		return 1
	}
	# The node registers within a second or two; 60 s covers a loaded machine.
	tries=0
	while :; do
		state=$(timeout 5 sinfo -h -n "$node" -o %T 2>/dev/null)
		case $state in
		idle) return 0 ;;
		*inval* | *drain*)
			echo "the node is '$state': slurmd's view of it differs from slurm.conf"
			slurm_cluster_log_tail
			return 1
			;;
		esac
		tries=$((tries + 1))
		if [ "$tries" -ge 120 ]; then
			echo "the node did not become idle in 60 s (state: '${state:-none}')"
			slurm_cluster_log_tail
			return 1
		fi
		sleep 0.5
	done
}

slurm_cluster_stop() {
	[ -n "${SLURM_DIR:-}" ] || return 0
	# Jobs first, so that slurmd does not leave their steps behind.
	timeout 10 scancel --full --quiet --user=root 2>/dev/null
	for daemon in slurmd slurmctld munged; do
		pidfile=$SLURM_DIR/run/$daemon.pid
		[ -f "$pidfile" ] || continue
		pid=$(cat "$pidfile")
		if [ -z "$pid" ] || ! kill "$pid" 2>/dev/null; then
			continue
		fi
		i=0
		while kill -0 "$pid" 2>/dev/null && [ "$i" -lt 50 ]; do
			sleep 0.1
			i=$((i + 1))
		done
		kill -9 "$pid" 2>/dev/null
	done
	SLURM_DIR=
}
