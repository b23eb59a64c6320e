/*
 * spin_ref.c - a C reference that never returns (tests/tuner/limits.sh):
 * spacetune must stop it at the run limit, and on SIGTERM at once.
 */
int spin_ref(int nargs, void **args);

int spin_ref(int nargs, void **args)
{
	(void)nargs;
	(void)args;
	static volatile int forever = 1;
	while (forever)
		;
	return 0;
}
