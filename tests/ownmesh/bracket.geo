// An L-bracket with a bolt hole, in metres (issue 45): the README's own-mesh
// example runs on the Gmsh mesh of it (tests/ownmesh/run.sh, make check-ownmesh):
//   gmsh -3 tests/ownmesh/bracket.geo -o bracket.msh
SetFactory("OpenCASCADE");
Box(1) = {0, 0, 0, 0.04, 0.01, 0.03};
Box(2) = {0, 0, 0, 0.01, 0.04, 0.03};
Cylinder(3) = {0.025, -0.001, 0.015, 0, 0.012, 0, 0.005};
BooleanUnion(4) = { Volume{1}; Delete; }{ Volume{2}; Delete; };
BooleanDifference(5) = { Volume{4}; Delete; }{ Volume{3}; Delete; };
Mesh.CharacteristicLengthMax = 0.006;
Mesh.MshFileVersion = 4.1;
