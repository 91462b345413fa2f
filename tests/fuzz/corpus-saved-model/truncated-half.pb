‰
("serve*2.15.12v2.15.0-11-g63f5a65c7cd$

xPlaceholder*
