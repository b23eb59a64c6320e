# program.sh -- sourced by the batch benchmarks with $st set to the
# spacetune to run: makes a relative path absolute (the runs happen in a
# scratch directory; a bare name is looked up in PATH), and replaces a
# build tree's libtool wrapper by the program itself with its libraries
# in LD_LIBRARY_PATH, as the wrapper would: the wrapper forks sed and ls
# before it runs the program, about 0.5 s of 8 ranks' start on 2 loaded
# cores that an installed spacetune does not pay.
case $st in */*) st=$(cd "$(dirname "$st")" && pwd)/$(basename "$st") ;; esac
libs=$(dirname "$st")/.libs
if [ -x "$libs/$(basename "$st")" ] && head -c 200 "$st" | grep -q 'libtool'; then
	st=$libs/$(basename "$st")
	LD_LIBRARY_PATH=$libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
	export LD_LIBRARY_PATH
fi
