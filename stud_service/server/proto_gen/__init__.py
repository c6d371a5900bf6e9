"""Generated from proto/stud/v1 by scripts/gen_protos.py; do not edit."""
