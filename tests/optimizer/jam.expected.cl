/* spacetune variant of tests/optimizer/jam.space: ji=3
 * options: -Dji=3
 * global: 23
 * local: 0
 */
/* Naive matrix multiplication, one column of C per work-item; the row
 * loop is unrolled and jammed (a register tile of rows). */
__kernel void mmcol(__global const float *A, __global const float *B, __global float *C, int n)
{
	int x = get_global_id(0);
	{ /* spacetune: unroll_jam ji = 3 */
		int i = 0;
		for (; i + 2 < n; i += 3) {
			float acc = 0.0f;
			float acc_spt1 = 0.0f;
			float acc_spt2 = 0.0f;
			for (int k = 0; k < n; k++)
			{
				{ acc += A[i * n + k] * B[k * n + x]; }
				{ acc_spt1 += A[(i + 1) * n + k] * B[k * n + x]; }
				{ acc_spt2 += A[(i + 2) * n + k] * B[k * n + x]; }
			}
			C[i * n + x] = acc;
			C[(i + 1) * n + x] = acc_spt1;
			C[(i + 2) * n + x] = acc_spt2;
		}
		for (; i < n; i++) {
			float acc = 0.0f;
			for (int k = 0; k < n; k++)
				acc += A[i * n + k] * B[k * n + x];
			C[i * n + x] = acc;
		}
	}
}
