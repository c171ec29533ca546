/* Latency of dependent random loads within a range: a pointer chase over a random cycle of cache
   lines. Build and run: cc -O2 -o latency latency.c && ./latency MIB 1   (1: ask for huge pages).
   Used in docs/BENCHMARKS.md, "8-byte table entries". */
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <sys/mman.h>
#include <time.h>
int main(int argc,char**argv){
  size_t mb=atoi(argv[1]); int huge=atoi(argv[2]);
  size_t n=mb*1024*1024/8;
  uint64_t*a=mmap(0,n*8,PROT_READ|PROT_WRITE,MAP_PRIVATE|MAP_ANONYMOUS,-1,0);
  madvise(a,n*8,huge?MADV_HUGEPAGE:MADV_NOHUGEPAGE);
  // random cycle with stride of cache lines
  size_t lines=n/8; uint64_t *perm=malloc(lines*8);
  for(size_t i=0;i<lines;i++)perm[i]=i;
  srand(1); for(size_t i=lines-1;i>0;i--){size_t j=((uint64_t)rand()*RAND_MAX+rand())%(i+1); uint64_t t=perm[i];perm[i]=perm[j];perm[j]=t;}
  for(size_t i=0;i<lines;i++) a[perm[i]*8]=perm[(i+1)%lines]*8;
  struct timespec t0,t1; size_t p=0; long iters=20000000;
  clock_gettime(CLOCK_MONOTONIC,&t0);
  for(long i=0;i<iters;i++) p=a[p];
  clock_gettime(CLOCK_MONOTONIC,&t1);
  double ns=((t1.tv_sec-t0.tv_sec)*1e9+(t1.tv_nsec-t0.tv_nsec))/iters;
  printf("%zu MiB huge=%d: %.1f ns/access (p=%zu)\n",mb,huge,ns,p);
}
