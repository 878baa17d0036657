# rel-err-vs-n.gp — made by dotfuzz report; remake with: gnuplot rel-err-vs-n.gp (in this
# directory). One terminal pass per format: PNG, then SVG.
set title 'Worst relative error against n'
set grid
set key outside right top
set logscale xy
set xlabel 'n (length bin midpoint)'
set ylabel 'worst relative error'
if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {
    set terminal pngcairo size 1000,600 noenhanced
} else {
    set terminal png size 1000,600 noenhanced
}
set output 'rel-err-vs-n.png'
plot 'rel-err-vs-n.dat' index 0 using 1:5 with linespoints title 'atomic-block', \
     'rel-err-vs-n.dat' index 1 using 1:5 with linespoints title 'fold', \
     'rel-err-vs-n.dat' index 2 using 1:5 with linespoints title 'tournament', \
     'rel-err-vs-n.dat' index 3 using 1:5 with linespoints title 'tree-hostsum', \
     'rel-err-vs-n.dat' index 4 using 1:5 with linespoints title 'shfl', \
     'rel-err-vs-n.dat' index 5 using 1:5 with linespoints title 'shfl-f64acc', \
     'rel-err-vs-n.dat' index 6 using 1:5 with linespoints title 'shfl-f64', \
     'rel-err-vs-n.dat' index 7 using 1:5 with linespoints title 'cublas-sdot', \
     'rel-err-vs-n.dat' index 8 using 1:5 with linespoints title 'cublas-ddot', \
     'rel-err-vs-n.dat' index 9 using 1:5 with linespoints title 'm-no-zero', \
     'rel-err-vs-n.dat' index 10 using 1:5 with linespoints title 'm-tail', \
     'rel-err-vs-n.dat' index 11 using 1:5 with linespoints title 'm-pow2-tree', \
     'rel-err-vs-n.dat' index 12 using 1:5 with linespoints title 'm-stride-off-by-one', \
     'rel-err-vs-n.dat' index 13 using 1:5 with linespoints title 'm-wrong-copy-size', \
     'rel-err-vs-n.dat' index 14 using 1:5 with linespoints title 'm-fold-bounds', \
     'rel-err-vs-n.dat' index 15 using 1:5 with linespoints title 'm-tournament-bounds', \
     'rel-err-vs-n.dat' index 16 using 1:5 with linespoints title 'm-no-sync', \
     'rel-err-vs-n.dat' index 17 using 1:5 with linespoints title 'm-nonatomic', \
     'rel-err-vs-n.dat' index 18 using 1:5 with linespoints title 'm-claims-det', \
     'rel-err-vs-n.dat' index 19 using 1:5 with linespoints title 'm-read-past-end', \
     'rel-err-vs-n.dat' index 20 using 1:5 with linespoints title 'm-int16-sum', \
     'rel-err-vs-n.dat' index 21 using 1:5 with linespoints title 'm-vec-tail', \
     'rel-err-vs-n.dat' index 22 using 1:5 with linespoints title 'm-int32-acc', \
     'rel-err-vs-n.dat' index 23 using 1:5 with linespoints title 'm-wild-read', \
     'rel-err-vs-n.dat' index 24 using 1:5 with linespoints title 'm-hang'
set terminal svg size 1000,600 noenhanced
set output 'rel-err-vs-n.svg'
replot
unset output
