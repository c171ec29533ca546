fn main() {
    for s in ["", "   ", "4,4,x,4 S", "4,4,4a,4 S", "4,4,,4 S", "4,4,256,4 S", "4,4,4,4 X", "4,4,4,4 S pie", "4,4,4,4 N opening", "4,4,4,4 S foo", "4,4,4,4 S first-turn bar", "  4,4,4 S", "4,4,4,4,4 S", "0,0,0,0 S", "0,0,0,0", "1,0,1,0", "4 , 4, 4 ,4 s", "é,4,4,4 S", "4,4,4,4 S\topening", "4,4,4,4S", "4,4,4,4 !", "-1,4,4,4 S"] {
        println!("{s:?} -> {:?}", s.parse::<kalah_core::Position>().map(|p| p.to_string()).map_err(|e| e.to_string()));
    }
}
