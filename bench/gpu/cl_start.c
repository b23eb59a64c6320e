/*
 * cl_start.c -- what one process pays to start using the first OpenCL GPU:
 * the platform list, the device, the context, a queue, a one-line build
 * and a 64 MiB buffer filled, each timed (CLOCK_MONOTONIC, seconds).
 * spacetune's evaluator forks one worker per parallel build and each opens
 * its own context, so this is a worker's start; run N at once to see how
 * the driver copes with N workers starting together (bench/README.md,
 * issue 14's GPU batch):
 *
 *   cc -O2 -o cl_start bench/gpu/cl_start.c -lOpenCL
 *   for i in $(seq 16); do ./cl_start w$i & done; wait
 */
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
int main(int argc,char**argv){
	double t0=now(); cl_platform_id p[8]; cl_uint np=0; clGetPlatformIDs(8,p,&np);
	double t1=now(); cl_device_id d=0; cl_uint nd=0; cl_platform_id P=0;
	for(cl_uint i=0;i<np&&!nd;i++){ if(clGetDeviceIDs(p[i],CL_DEVICE_TYPE_GPU,1,&d,&nd)==CL_SUCCESS&&nd) P=p[i]; }
	(void)P; double t2=now(); cl_int e; cl_context c=clCreateContext(NULL,1,&d,NULL,NULL,&e);
	double t3=now(); cl_command_queue q=clCreateCommandQueueWithProperties(c,d,NULL,&e);
	double t4=now(); const char*src="__kernel void k(__global float*a){a[get_global_id(0)]+=1.0f;}";
	cl_program pr=clCreateProgramWithSource(c,1,&src,NULL,&e); e=clBuildProgram(pr,1,&d,"",NULL,NULL);
	double t5=now(); cl_mem m=clCreateBuffer(c,CL_MEM_READ_WRITE,64<<20,NULL,&e); float z=0; clEnqueueFillBuffer(q,m,&z,4,0,64<<20,0,NULL,NULL); clFinish(q);
	double t6=now();
	printf("%s start %.3f platforms %.3f device %.3f context %.3f queue %.3f build %.3f buffer %.3f end %.3f\n",argc>1?argv[1]:"-",t0,t1-t0,t2-t1,t3-t2,t4-t3,t5-t4,t6-t5,t6);
	return 0;}
