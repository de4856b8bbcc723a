#!/usr/bin/env bash
# A real one-node Slurm cluster on loopback: munged, slurmctld and slurmd
# started by hand with a private configuration (no systemd here), then
#   - sbatch --wait scripts/slurm/dsanalyze.sbatch (mpirun inside the job),
#   - srun --mpi=pmi2 -n 2 dsanalyze,
# must both write output byte-identical to a plain `mpiexec -n 2` run, and
#   - srun --mpi=none -n 2 dsanalyze
# must fail with the launch guard's message and write nothing.
# Needs root (daemons, apt-get); installs slurm-wlm and munge when missing.
set -euo pipefail
: "${DSANALYZE:?}" "${MPIEXEC:?}" "${SOURCE_DIR:?}"
here=$(cd "$(dirname "$0")" && pwd)
source "$here/common.sh"

need_root "starts munged, slurmctld and slurmd and may apt-get install slurm-wlm"
(($(nproc) >= 2)) || skip "needs 2 CPUs for a 2-task job"
"$here/install_slurm.sh" || fail "could not install slurm-wlm and munge"
log "slurm-wlm and munge present"

work=$(mktemp -d /tmp/dsa-slurm.XXXXXX)
chmod 711 "$work"  # munged wants its socket's directory closed to others' writes
on_exit "rm -rf '$work'"
mkdir -p "$work"/{munge,state,spool,log}
chmod 711 "$work/munge"

# --- munged, with a key and socket of its own ---------------------------------
dd if=/dev/urandom of="$work/munge/key" bs=1024 count=1 status=none
chmod 600 "$work/munge/key"
sock="$work/munge/socket"
munged -F --force -S "$sock" --key-file="$work/munge/key" --pid-file="$work/munge/pid" \
  --seed-file="$work/munge/seed" --log-file="$work/log/munged.log" \
  > "$work/log/munged.out" 2>&1 &
munged_pid=$!
on_exit "stop_pid $munged_pid"

# --- slurm.conf: one node, loopback only, free ports ---------------------------
free_port() {
  local p
  while :; do
    p=$((20000 + RANDOM % 20000))
    ss -Hltn "sport = :$p" | grep -q . || ss -Hltn "sport = :$((p + 1))" | grep -q . || break
  done
  echo "$p"
}
port=$(free_port)
# RealMemory a little under the machine's: more than slurmd finds drains the node.
mem_mb=$(awk '/MemTotal/ {print int($2 / 1024 * 0.9)}' /proc/meminfo)
export SLURM_CONF="$work/slurm.conf"
cat > "$SLURM_CONF" <<EOF
ClusterName=dsatest
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort=$port
SlurmdPort=$((port + 1))
AuthType=auth/munge
AuthInfo=socket=$sock
CredType=cred/munge
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/log/slurmctld.log
SlurmdLogFile=$work/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=pmi2
CommunicationParameters=NoInAddrAny
MailProg=/bin/true
ReturnToService=2
NodeName=dsanode NodeHostname=$(hostname) NodeAddr=127.0.0.1 CPUs=$(nproc) RealMemory=$mem_mb State=UNKNOWN
PartitionName=debug Nodes=dsanode Default=YES MaxTime=INFINITE State=UP
EOF
show_logs() {
  echo "--- queue" >&2
  timeout 5 squeue -o '%i %j %T %R' >&2 || true
  echo "--- slurm logs ($work/log)" >&2
  tail -n 20 "$work"/log/* >&2 || true
}

# Everything the daemons start inherits SLURM_CONF: after stopping them, that
# marker finds any job step they left behind.
on_exit "kill_marked 'SLURM_CONF=$SLURM_CONF'"
for _ in $(seq 50); do [[ -S $sock ]] && break; sleep 0.1; done
[[ -S $sock ]] || { show_logs; fail "munged did not start"; }
slurmctld -D -i > "$work/log/slurmctld.out" 2>&1 &
slurmctld_pid=$!
on_exit "stop_pid $slurmctld_pid"
slurmd -D -N dsanode > "$work/log/slurmd.out" 2>&1 &
slurmd_pid=$!
on_exit "stop_pid $slurmd_pid"
on_exit "timeout 10 scancel --full --quiet --user=root >/dev/null 2>&1"
for _ in $(seq 100); do
  [[ $(timeout 5 sinfo -h -n dsanode -o %T 2>/dev/null) == idle ]] && break
  sleep 0.2
done
[[ $(timeout 5 sinfo -h -n dsanode -o %T 2>/dev/null) == idle ]] \
  || { show_logs; fail "node did not become idle: $(sinfo -h -o '%T %E' 2>&1)"; }
log "cluster up: slurmctld $slurmctld_pid, slurmd $slurmd_pid, munged $munged_pid"

# --- the runs ----------------------------------------------------------------
for name in plain sbatch srun none; do demo_config "$work/out-$name" > "$work/$name.json"; done

bounded "$MPIEXEC" -n 2 "$DSANALYZE" --config "$work/plain.json" --quiet \
  || fail "plain mpiexec -n 2 run failed"
log "plain mpiexec -n 2: done"

# The user's script as shipped; the test only points it at this build and
# sends its log to the scratch directory.
export DSANALYZE MPIRUN="$MPIEXEC"
bounded sbatch --wait --quiet --output="$work/sbatch.log" \
  "$SOURCE_DIR/scripts/slurm/dsanalyze.sbatch" "$work/sbatch.json" \
  || { cat "$work/sbatch.log" >&2 || true; show_logs; fail "sbatch job failed"; }
grep -q "2 tasks" "$work/sbatch.log" || fail "the batch job did not get 2 tasks"
same_output "$work/out-plain" "$work/out-sbatch" "sbatch dsanalyze.sbatch"
log "sbatch --wait dsanalyze.sbatch: identical"

bounded srun --mpi=pmi2 -n 2 "$DSANALYZE" --config "$work/srun.json" --quiet \
  || { show_logs; fail "srun --mpi=pmi2 -n 2 failed"; }
same_output "$work/out-plain" "$work/out-srun" "srun --mpi=pmi2 -n 2"
log "srun --mpi=pmi2 -n 2: identical"

set +e
bounded srun --mpi=none -n 2 "$DSANALYZE" --config "$work/none.json" --quiet \
  > "$work/none.log" 2>&1
rc=$?
set -e
cat "$work/none.log"
((rc != 0)) || fail "srun --mpi=none -n 2 succeeded; the launch guard should refuse it"
grep -q "exit code 2" "$work/none.log" || fail "srun --mpi=none: tasks did not exit with 2"
grep -q "SLURM_STEP_NUM_TASKS=2.*srun --mpi=pmi2" "$work/none.log" \
  || fail "srun --mpi=none: the message does not name the cause and the fix"
[[ ! -e $work/out-none ]] || fail "srun --mpi=none: a refused run wrote $work/out-none"
log "srun --mpi=none -n 2: refused"
echo "PASS"
