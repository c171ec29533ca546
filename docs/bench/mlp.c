/* Memory-level parallelism: K independent pointer chases over a random cycle of cache lines in
   MIB MiB (huge pages advised). Build and run: cc -O2 -o mlp mlp.c && ./mlp 512 K
   Used in docs/BENCHMARKS.md, "Hiding the table latency on one core". */
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <sys/mman.h>
#include <time.h>
int main(int argc,char**argv){
  size_t mb=atoi(argv[1]); int k=atoi(argv[2]); int huge=argc>3?atoi(argv[3]):1;
  size_t n=mb*(1<<20)/64; /* one slot per cache line */
  uint64_t *a=mmap(0,n*64,PROT_READ|PROT_WRITE,MAP_PRIVATE|MAP_ANONYMOUS,-1,0);
  madvise(a,n*64,huge?MADV_HUGEPAGE:MADV_NOHUGEPAGE);
  uint64_t *perm=malloc(n*8); for(size_t i=0;i<n;i++)perm[i]=i;
  uint64_t s=88172645463325252ull;
  for(size_t i=n-1;i>0;i--){s^=s<<13;s^=s>>7;s^=s<<17;size_t j=s%(i+1);uint64_t t=perm[i];perm[i]=perm[j];perm[j]=t;}
  for(size_t i=0;i<n;i++)a[perm[i]*8]=perm[(i+1)%n]*8;
  uint64_t p[16]; for(int c=0;c<k;c++)p[c]=perm[(c*(n/k))]*8;
  size_t steps=20000000/k; struct timespec t0,t1; clock_gettime(CLOCK_MONOTONIC,&t0);
  for(size_t i=0;i<steps;i++){ for(int c=0;c<k;c++) p[c]=a[p[c]]; }
  clock_gettime(CLOCK_MONOTONIC,&t1);
  double ns=((t1.tv_sec-t0.tv_sec)*1e9+(t1.tv_nsec-t0.tv_nsec));
  uint64_t x=0; for(int c=0;c<k;c++)x+=p[c];
  printf("%zu MiB k=%d huge=%d: %.1f ns/access, %.1f ns/round (x=%lu)\n",mb,k,huge,ns/(steps*k),ns/steps,x&1);
}
