	
"2serve