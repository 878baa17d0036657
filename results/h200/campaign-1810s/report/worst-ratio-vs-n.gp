# worst-ratio-vs-n.gp — made by dotfuzz report; remake with: gnuplot worst-ratio-vs-n.gp (in this
# directory). One terminal pass per format: PNG, then SVG.
set title 'Worst error ratio against n'
set grid
set key outside right top
set logscale xy
set xlabel 'n (length bin midpoint)'
set ylabel 'worst error ratio |err|/(u*G)'
if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {
    set terminal pngcairo size 1000,600 noenhanced
} else {
    set terminal png size 1000,600 noenhanced
}
set output 'worst-ratio-vs-n.png'
plot 'worst-ratio-vs-n.dat' index 0 using 1:5 with linespoints title 'atomic-block', \
     'worst-ratio-vs-n.dat' index 1 using 1:5 with linespoints title 'fold', \
     'worst-ratio-vs-n.dat' index 2 using 1:5 with linespoints title 'tournament', \
     'worst-ratio-vs-n.dat' index 3 using 1:5 with linespoints title 'tree-hostsum', \
     'worst-ratio-vs-n.dat' index 4 using 1:5 with linespoints title 'shfl', \
     'worst-ratio-vs-n.dat' index 5 using 1:5 with linespoints title 'shfl-f64acc', \
     'worst-ratio-vs-n.dat' index 6 using 1:5 with linespoints title 'shfl-f64', \
     'worst-ratio-vs-n.dat' index 7 using 1:5 with linespoints title 'cublas-sdot', \
     'worst-ratio-vs-n.dat' index 8 using 1:5 with linespoints title 'cublas-ddot', \
     'worst-ratio-vs-n.dat' index 9 using 1:5 with linespoints title 'm-no-zero', \
     'worst-ratio-vs-n.dat' index 10 using 1:5 with linespoints title 'm-tail', \
     'worst-ratio-vs-n.dat' index 11 using 1:5 with linespoints title 'm-pow2-tree', \
     'worst-ratio-vs-n.dat' index 12 using 1:5 with linespoints title 'm-stride-off-by-one', \
     'worst-ratio-vs-n.dat' index 13 using 1:5 with linespoints title 'm-wrong-copy-size', \
     'worst-ratio-vs-n.dat' index 14 using 1:5 with linespoints title 'm-fold-bounds', \
     'worst-ratio-vs-n.dat' index 15 using 1:5 with linespoints title 'm-tournament-bounds', \
     'worst-ratio-vs-n.dat' index 16 using 1:5 with linespoints title 'm-no-sync', \
     'worst-ratio-vs-n.dat' index 17 using 1:5 with linespoints title 'm-nonatomic', \
     'worst-ratio-vs-n.dat' index 18 using 1:5 with linespoints title 'm-claims-det', \
     'worst-ratio-vs-n.dat' index 19 using 1:5 with linespoints title 'm-read-past-end', \
     'worst-ratio-vs-n.dat' index 20 using 1:5 with linespoints title 'm-vec-tail', \
     'worst-ratio-vs-n.dat' index 21 using 1:5 with linespoints title 'm-wild-read', \
     'worst-ratio-vs-n.dat' index 22 using 1:5 with linespoints title 'm-hang'
set terminal svg size 1000,600 noenhanced
set output 'worst-ratio-vs-n.svg'
replot
unset output
