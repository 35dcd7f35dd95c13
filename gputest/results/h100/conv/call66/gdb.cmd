set pagination off
set environment LD_PRELOAD=/work/main/build/device/libisaac.so
set environment ISAAC_CONV_AUTO=1
set environment ISAAC_LOG=1
set environment ISAAC_CACHE_DIR=/tmp/tmp.pqVO3PMJU1
run
bt 40
info threads
thread apply all bt 15
