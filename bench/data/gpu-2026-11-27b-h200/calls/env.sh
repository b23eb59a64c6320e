# sourced at the start of every device call: NVIDIA's OpenCL registered,
# the carried libraries (libclang/LLVM included) unpacked, PATH set
mkdir -p /etc/OpenCL/vendors && echo libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
C=$PWD/.carry/full
L=/tmp/L
if [ ! -f $L/ok ]; then
	mkdir -p $L
	tar xJf $C/rest.tar.xz -C $L
	xz -dc $C/libLLVM-15.so.1.xz > $L/libLLVM-15.so.1
	xz -dc $C/libclang-15.so.15.xz > $L/libclang-15.so.15
	cp $C/libspacert.so.0 $L/
	mkdir -p /usr/include/clang/15.0.6/include
	tar xJf $C/clhdr.tar.xz -C /usr/include/clang/15.0.6/include
	touch $L/ok
fi
export LD_LIBRARY_PATH=$L
export PATH=$C:$PATH
export CUDA_CACHE_DISABLE=1
