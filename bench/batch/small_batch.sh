# small_batch.sh -- sourced by reuse.sh and ramp.sh: their common batch
# file, 4 GEMM and 3 conv2d problems small enough for PoCL, random search.
#   small_batch TOP BUDGET >FILE   (TOP: the repository root)
small_batch() {
	echo "strategy random"
	echo "budget $2"
	echo "problem $1/spaces/gemm.space"
	echo "    set M = 128, 256"
	echo "    set N = 128"
	echo "    set K = 128"
	echo "    set precision = \"single\", \"double\""
	echo "problem $1/spaces/conv2d.space"
	echo "    set W = 256"
	echo "    set H = 128"
	echo "    set filter_size = 3, 7, 11"
}
