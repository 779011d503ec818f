-- Hall names are told apart without regard to case: "Hall 1" and "hall 1" are one name (an
-- operator picking a hall by its name must never meet two).
create unique index hall_name_folded on hall (lower(name));
