# ratio-hist.gp — made by dotfuzz report; remake with: gnuplot ratio-hist.gp (in this
# directory). One terminal pass per format: PNG, then SVG.
set title 'Distribution of error ratios (log2)'
set grid
set key outside right top
set logscale y
set xlabel 'log2(error ratio), bins [k, k+1)'
set ylabel 'cases'
set arrow 1 from 0, graph 0 to 0, graph 1 nohead dashtype 2
set boxwidth 0.9
set style fill transparent solid 0.35
if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {
    set terminal pngcairo size 1000,600 noenhanced
} else {
    set terminal png size 1000,600 noenhanced
}
set output 'ratio-hist.png'
plot 'ratio-hist.dat' index 0 using ($1+0.5):2 with boxes title 'atomic-block', \
     'ratio-hist.dat' index 1 using ($1+0.5):2 with boxes title 'int-atomic', \
     'ratio-hist.dat' index 2 using ($1+0.5):2 with boxes title 'fold', \
     'ratio-hist.dat' index 3 using ($1+0.5):2 with boxes title 'tournament', \
     'ratio-hist.dat' index 4 using ($1+0.5):2 with boxes title 'tree-hostsum', \
     'ratio-hist.dat' index 5 using ($1+0.5):2 with boxes title 'shfl', \
     'ratio-hist.dat' index 6 using ($1+0.5):2 with boxes title 'shfl-f64acc', \
     'ratio-hist.dat' index 7 using ($1+0.5):2 with boxes title 'shfl-f64', \
     'ratio-hist.dat' index 8 using ($1+0.5):2 with boxes title 'cublas-sdot', \
     'ratio-hist.dat' index 9 using ($1+0.5):2 with boxes title 'cublas-ddot', \
     'ratio-hist.dat' index 10 using ($1+0.5):2 with boxes title 'm-no-zero', \
     'ratio-hist.dat' index 11 using ($1+0.5):2 with boxes title 'm-tail', \
     'ratio-hist.dat' index 12 using ($1+0.5):2 with boxes title 'm-pow2-tree', \
     'ratio-hist.dat' index 13 using ($1+0.5):2 with boxes title 'm-stride-off-by-one', \
     'ratio-hist.dat' index 14 using ($1+0.5):2 with boxes title 'm-wrong-copy-size', \
     'ratio-hist.dat' index 15 using ($1+0.5):2 with boxes title 'm-fold-bounds', \
     'ratio-hist.dat' index 16 using ($1+0.5):2 with boxes title 'm-tournament-bounds', \
     'ratio-hist.dat' index 17 using ($1+0.5):2 with boxes title 'm-no-sync', \
     'ratio-hist.dat' index 18 using ($1+0.5):2 with boxes title 'm-nonatomic', \
     'ratio-hist.dat' index 19 using ($1+0.5):2 with boxes title 'm-claims-det', \
     'ratio-hist.dat' index 20 using ($1+0.5):2 with boxes title 'm-read-past-end', \
     'ratio-hist.dat' index 21 using ($1+0.5):2 with boxes title 'm-int16-sum', \
     'ratio-hist.dat' index 22 using ($1+0.5):2 with boxes title 'm-vec-tail', \
     'ratio-hist.dat' index 23 using ($1+0.5):2 with boxes title 'm-int32-acc', \
     'ratio-hist.dat' index 24 using ($1+0.5):2 with boxes title 'm-wild-read', \
     'ratio-hist.dat' index 25 using ($1+0.5):2 with boxes title 'm-hang'
set terminal svg size 1000,600 noenhanced
set output 'ratio-hist.svg'
replot
unset output
