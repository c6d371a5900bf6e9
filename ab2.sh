#!/bin/bash
# usage: ab2.sh MODE REPS : base (old schema, db exp) vs main (db exp2), pgbench on exp
PY=/work/main/.venv/bin/python; PGB=/work/main/.venv/lib/python3.11/site-packages/pgserver/pginstall/bin/pgbench; U="postgresql://postgres:@/exp?host=/tmp/exp/pgdata"
c=${1#p}
for r in $(seq $2); do
  b=$(DB=exp $PY /tmp/exp/abrun2.py /tmp/exp/base $1 4 2>/dev/null | tail -1); n=$(DB=exp2 $PY /tmp/exp/abrun2.py /work/main $1 4 2>/dev/null | tail -1)
  p=$($PGB -n -M prepared -f /tmp/exp/ins.sql -c $c -j $((c<2?c:2)) -T 4 "$U" | grep -oP 'tps = \K[\d.]+')
  python3 -c "b,n,p=$b,$n,$p; print(f'mode $1: base {b:,.0f} ({b/p:.2f})  new {n:,.0f} ({n/p:.2f})  pgbench {p:,.0f}')"
done
