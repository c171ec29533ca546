/* Random loads, each followed by W steps of dependent arithmetic (which fill the reorder buffer,
   so the loads barely overlap on their own); with D > 0 the address D steps ahead is prefetched. Build and run: cc -O2 -o prefetch prefetch.c && ./prefetch 512 D W
   Used in docs/BENCHMARKS.md, "Hiding the table latency on one core". */
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <sys/mman.h>
#include <time.h>
#include <xmmintrin.h>
int main(int argc,char**argv){
  size_t mb=atoi(argv[1]); int d=atoi(argv[2]); int w=atoi(argv[3]);
  size_t n=mb*(1<<20)/8; size_t iters=4000000;
  uint64_t *a=mmap(0,n*8,PROT_READ|PROT_WRITE,MAP_PRIVATE|MAP_ANONYMOUS,-1,0);
  madvise(a,n*8,MADV_HUGEPAGE);
  for(size_t i=0;i<n;i+=512)a[i]=i;
  size_t *idx=malloc(iters*8+64*8); uint64_t s=88172645463325252ull;
  for(size_t i=0;i<iters+64;i++){s^=s<<13;s^=s>>7;s^=s<<17; idx[i]=s%n;}
  uint64_t acc=0,x=0;
  struct timespec t0,t1; clock_gettime(CLOCK_MONOTONIC,&t0);
  for(size_t i=0;i<iters;i++){
    if(d>0)_mm_prefetch((char*)&a[idx[i+d]],_MM_HINT_T0);
    x=a[idx[i]]; acc+=x;
    for(int k=0;k<w;k++){acc=acc*6364136223846793005ull+1442695040888963407ull;}
    if(acc==12345)x++;
  }
  clock_gettime(CLOCK_MONOTONIC,&t1);
  double ns=((t1.tv_sec-t0.tv_sec)*1e9+(t1.tv_nsec-t0.tv_nsec));
  printf("%zu MiB d=%d w=%d: %.1f ns/iter (%lu)\n",mb,d,w,ns/iters,acc&1);
}
